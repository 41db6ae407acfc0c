// The handles on the probe's counting maps, by role. Copies share the
// handles; the descriptors stay owned by the probe.
#pragma once

#include <memory>

#include "probe/bpf_map.h"

namespace netif_rx {

class Probe;

struct ProbeMaps {
  std::shared_ptr<BpfMap> device_counters;  // per-CPU hash, key netif_rx_device_key
  std::shared_ptr<BpfMap> device_names;     // hash, netif_rx_device_name by key
  std::shared_ptr<BpfMap> probe_totals;     // per-CPU array: untracked, counted
  // Per-CPU array by ifindex (key __u32): the devices of the exporter's own
  // namespace `host_netns_inum` whose ifindex is below `host_slots`; the
  // others are in device_counters. Null: no such array.
  std::shared_ptr<BpfMap> host_counters;
  std::uint32_t host_netns_inum = 0;
  std::uint32_t host_slots = 0;
  // Other namespaces' blocks (bpf/netif_rx.h): the direct-mapped table (array
  // of netif_rx_netns_block) and the per-CPU array of blocks x block_slots.
  // Null, or netns_blocks 0: none.
  std::shared_ptr<BpfMap> netns_table;
  std::shared_ptr<BpfMap> netns_slots;
  std::uint32_t netns_blocks = 0;
  std::uint32_t netns_block_slots = 1;
  std::uint32_t netns_table_size = 1;
  // The counts carried over from a probe of another layout, written by the
  // daemon only (pipeline/carried_devices.h): a per-CPU hash by device and
  // a per-CPU array of totals slotted as probe_totals. Null: none.
  std::shared_ptr<BpfMap> carried_counters = nullptr;
  std::shared_ptr<BpfMap> carried_totals = nullptr;
};

// The maps of a loaded probe; valid while `probe` lives.
ProbeMaps maps_of(const Probe& probe);

}  // namespace netif_rx
