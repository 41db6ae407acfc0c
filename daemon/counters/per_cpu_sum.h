// Sums of per-CPU counters, one element per possible CPU, as the maps hold
// them: where one device's counts stand in several places (a hash entry, an
// array slot, a block slot, a carried entry), they are added so.
#pragma once

#include <algorithm>
#include <vector>

#include "netif_rx.h"

namespace netif_rx {

// Adds `more` to `sum`, CPU by CPU; `sum` grows to `more`'s CPUs.
inline void add_per_cpu(std::vector<netif_rx_counters>& sum,
                        const std::vector<netif_rx_counters>& more) {
  if (sum.size() < more.size()) sum.resize(more.size());
  for (std::size_t cpu = 0; cpu < more.size(); ++cpu) {
    sum[cpu].skbs += more[cpu].skbs;
    sum[cpu].merged_packets += more[cpu].merged_packets;
    sum[cpu].bytes += more[cpu].bytes;
  }
}

// Takes `less` (counts added to `sum` before) back from `sum`, CPU by CPU.
inline void subtract_per_cpu(std::vector<netif_rx_counters>& sum,
                             const std::vector<netif_rx_counters>& less) {
  for (std::size_t cpu = 0; cpu < less.size() && cpu < sum.size(); ++cpu) {
    sum[cpu].skbs -= less[cpu].skbs;
    sum[cpu].merged_packets -= less[cpu].merged_packets;
    sum[cpu].bytes -= less[cpu].bytes;
  }
}

// `per_cpu` summed over every CPU it has a slot for: every possible CPU, a
// CPU that left (hot unplugged) too, whose slots keep what it counted.
inline netif_rx_counters sum_over_cpus(const std::vector<netif_rx_counters>& per_cpu) {
  netif_rx_counters sum{};
  for (const netif_rx_counters& cpu : per_cpu) {
    sum.skbs += cpu.skbs;
    sum.merged_packets += cpu.merged_packets;
    sum.bytes += cpu.bytes;
  }
  return sum;
}

// True when a CPU's slot holds counts.
inline bool holds_counts(const netif_rx_counters& counters) {
  return counters.skbs != 0 || counters.merged_packets != 0 || counters.bytes != 0;
}

// True when any CPU counted anything.
inline bool counted_anything(const std::vector<netif_rx_counters>& per_cpu) {
  return std::any_of(per_cpu.begin(), per_cpu.end(), holds_counts);
}

// The counted total's per-CPU slot (NETIF_RX_SLOT_COUNTED) holds no bytes: its
// `bytes` word is the probe's handover mark (an skb's address), not a count.
inline void drop_handover_marks(std::vector<netif_rx_counters>& counted) {
  for (auto& per_cpu : counted) per_cpu.bytes = 0;
}

}  // namespace netif_rx
