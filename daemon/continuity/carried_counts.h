// The counts of a probe of another layout, carried into this layout's maps
// (continuity/layout_carry.h): a pure step from what the previous probe's maps
// held, once its program stopped counting, to one entry per device and the
// totals. Nothing counted is dropped: a count that has no device any more (a
// block slot of no namespace, a device beyond the carried map's capacity)
// becomes a removed count, as the previous exporter would have made it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "counters/device_counters.h"
#include "netif_rx.h"

namespace netif_rx {

// The previous probe's settings, from its read-only data.
struct PreviousSettings {
  std::uint32_t host_netns_inum = 0;    // whose devices its host_counters count
  std::uint32_t netns_blocks = 0;       // 0: no blocks
  std::uint32_t netns_block_slots = 1;  // slots of each block
};

// What the previous probe's maps held: only entries and slots that counted
// something.
struct PreviousCounts {
  std::vector<DeviceCounters> device_counters;                        // its hash
  std::vector<DeviceCounters> carried_counters;                       // what it carried itself
  std::vector<std::pair<std::uint32_t, PerCpuCounters>> host_slots;   // by ifindex
  std::vector<netif_rx_netns_block> netns_table;                      // every entry
  std::vector<std::pair<std::uint32_t, PerCpuCounters>> netns_slots;  // by slot index
  std::vector<PerCpuCounters> totals;                                 // probe_totals, by slot
  std::vector<PerCpuCounters> carried_totals;                         // carried_totals, by slot
};

struct CarriedCounts {
  std::vector<DeviceCounters> devices;  // one per device, sorted by key
  // By slot of probe_totals (NETIF_RX_PROBE_TOTALS_SLOTS): untracked,
  // counted and the fallbacks go to carried_totals, the removed counts to the
  // new probe's own removed slot.
  std::vector<PerCpuCounters> totals;
  std::size_t slots_without_device = 0;   // block slots of no namespace: removed
  std::size_t devices_over_capacity = 0;  // beyond `capacity`: removed
};

// Sums `previous` by device and by slot, for `possible_cpus` CPUs, keeping
// at most `capacity` devices (the carried map's size).
CarriedCounts carry_counts(const PreviousCounts& previous, const PreviousSettings& settings,
                           std::size_t capacity, unsigned possible_cpus);

}  // namespace netif_rx
