// What a configuration reload (SIGHUP) may change while the probe stays
// loaded, and what needs a restart.
#pragma once

#include <string>
#include <vector>

#include "config/config.h"

namespace netif_rx {

struct ReloadPlan {
  // The new configuration, with the settings that need a restart kept at
  // their running values.
  Config config;
  // One line per setting that changed in the file but needs a restart, e.g.
  // "max_devices: 4096 -> 8192 needs a restart; keeping 4096".
  std::vector<std::string> needs_restart;
};

// Settings fixed while the probe is loaded: namespaces (a rodata constant of
// the probe), max_devices, netns_blocks and netns_block_slots (the maps'
// capacities) and attach (which program);
// bpf_stats until its sampler can be switched live. poll_interval, per_cpu, max_series,
// devices and stale_after apply live.
ReloadPlan plan_reload(const Config& running, const Config& next);

}  // namespace netif_rx
