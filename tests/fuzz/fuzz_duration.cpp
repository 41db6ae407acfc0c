// Durations as flags and configuration files write them ("1m30s"): parsing,
// and formatting what was parsed reads back as the same duration.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "util/duration.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parsed =
      netif_rx::parse_duration(std::string_view(reinterpret_cast<const char*>(data), size));
  if (parsed && parsed->count() >= 0) {
    const auto again = netif_rx::parse_duration(netif_rx::format_duration(*parsed));
    if (!again || *again != *parsed) __builtin_trap();
  }
  return 0;
}
