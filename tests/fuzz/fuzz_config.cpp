// The exporter's YAML configuration file (--config.file).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "config/config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)netif_rx::parse_config(std::string_view(reinterpret_cast<const char*>(data), size),
                                 "fuzz.yaml");
  } catch (const netif_rx::ConfigError&) {
  }
  return 0;
}
