// A container runtime's bundle config.json (containerd, CRI-O), as the
// attribution reads it from /run: outside input, bounded in size and depth.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "owners/oci_bundle.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (const auto bundle = netif_rx::parse_bundle_config(text)) {
    (void)netif_rx::owner_of_bundle(*bundle, "id");
  }
  return 0;
}
