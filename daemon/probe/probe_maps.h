// The handles on the probe's counting maps, by role. Copies share the
// handles; the descriptors stay owned by the probe.
#pragma once

#include <memory>

#include "probe/bpf_map.h"

namespace netif_rx {

class Probe;

struct ProbeMaps {
  std::shared_ptr<BpfMap> device_counters;     // per-CPU hash, key netif_rx_device_key
  std::shared_ptr<BpfMap> device_names;        // hash, netif_rx_device_name by key
  std::shared_ptr<BpfMap> untracked_counters;  // per-CPU array: untracked, counted
};

// The maps of a loaded probe; valid while `probe` lives.
ProbeMaps maps_of(const Probe& probe);

}  // namespace netif_rx
