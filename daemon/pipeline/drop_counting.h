// The drop counter as the daemon runs it: attached beside the probe when
// the kernel has drop reasons, read by the poller into each snapshot.
#pragma once

#include <memory>
#include <string>

#include "config/config.h"
#include "drops/drop_probe.h"
#include "pipeline/poller.h"

namespace netif_rx {

class PollObserver;

// Loads and attaches the drop counter for `config` (its namespaces mode) in
// the namespace `host_netns_inum`; null, with a warning logged once, when
// the kernel has no drop reasons (before 5.17) or loading failed: the
// exporter goes on without the drop families.
std::unique_ptr<DropProbe> attach_drop_counter(const Config& config, std::uint32_t host_netns_inum,
                                               const std::string& btf_path);

// The poller's source of drops for `probe` (borrowed: it must outlive the
// poller; null: none). Where the probe has no CPU_BACKLOG (before 5.18, or
// no probe), backlog drops per CPU come from /proc/net/softnet_stat (at
// `softnet_path`). A failed map read is counted in `metrics` as map_read.
DropsSource drops_source(const DropProbe* probe, PollObserver& metrics,
                         std::string softnet_path = "/proc/net/softnet_stat");

}  // namespace netif_rx
