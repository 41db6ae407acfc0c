#include "probe/probe_maps.h"

#include "probe/probe.h"

namespace netif_rx {

ProbeMaps maps_of(const Probe& probe) {
  return {std::make_shared<KernelBpfMap>("device_counters", probe.device_counters_fd()),
          std::make_shared<KernelBpfMap>("device_names", probe.device_names_fd()),
          std::make_shared<KernelBpfMap>("probe_totals", probe.probe_totals_fd()),
          std::make_shared<KernelBpfMap>("host_counters", probe.host_counters_fd()),
          probe.host_netns_inum(),
          probe.host_slots(),
          std::make_shared<KernelBpfMap>("netns_table", probe.netns_table_fd()),
          std::make_shared<KernelBpfMap>("netns_slots", probe.netns_slots_fd()),
          probe.netns_blocks(),
          probe.netns_block_slots(),
          probe.netns_table_size(),
          std::make_shared<KernelBpfMap>("carried_counters", probe.carried_counters_fd()),
          std::make_shared<KernelBpfMap>("carried_totals", probe.carried_totals_fd())};
}

}  // namespace netif_rx
