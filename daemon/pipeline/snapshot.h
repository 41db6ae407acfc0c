// An immutable view of the probe's counters at one poll: what a scrape serves.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "netif_rx.h"
#include "probe/bpf_stats_data.h"

namespace netif_rx {

struct DeviceSeries {
  netif_rx_device_key key{};
  std::string name;                        // the device's name now, as a label value
  std::vector<netif_rx_counters> per_cpu;  // index = CPU number
};

struct Snapshot {
  std::vector<DeviceSeries> devices;  // sorted by (name, netns)
  std::vector<netif_rx_counters> untracked_per_cpu;
  std::vector<unsigned> cpus;  // CPUs that exist: the only ones exported
  BpfStatsSnapshot bpf;        // the probe's own cost, read on the same poll
};

}  // namespace netif_rx
