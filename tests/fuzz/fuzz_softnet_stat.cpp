// /proc/net/softnet_stat as the kernel (or anything in its place) writes it:
// parsing is bounded, and the wrap-counting totals never go down.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "drops/softnet_stat.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto rows = netif_rx::parse_softnet_stat(text);
  if (rows.size() > 8192) __builtin_trap();
  netif_rx::SoftnetBacklogDrops drops;
  drops.update(rows);
  const auto first = drops.per_cpu();
  drops.update(netif_rx::parse_softnet_stat(text.substr(size / 2)));
  const auto& second = drops.per_cpu();
  for (std::size_t cpu = 0; cpu < first.size(); ++cpu) {
    if (second[cpu] < first[cpu]) __builtin_trap();
  }
  return 0;
}
