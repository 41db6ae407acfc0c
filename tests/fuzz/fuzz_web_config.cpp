// The web configuration (--web.config.file, exporter-toolkit format).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "web/web_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)netif_rx::parse_web_config(std::string_view(reinterpret_cast<const char*>(data), size),
                                     "/etc/netif_rx_exporter/web.yaml");
  } catch (const netif_rx::ConfigError&) {
  }
  return 0;
}
