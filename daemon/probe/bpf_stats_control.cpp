#include "probe/bpf_stats_control.h"

#include <bpf/bpf.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>

#include "app/privileges.h"

namespace netif_rx {

BpfStatsControl::BpfStatsControl(const BpfStatsConfig& config) {
  if (config.mode == BpfStatsMode::off) {
    spdlog::info(
        "bpf_stats.mode=off: BPF statistics are not enabled by the exporter; run time and run "
        "count move only while something else enables them");
    return;
  }
  if (!can_enable_bpf_stats()) {
    spdlog::warn(
        "bpf_stats.mode={} needs CAP_SYS_ADMIN to enable the kernel's BPF statistics; this "
        "process has {}; continuing without them (netif_rx_bpf_stats_enabled 0)",
        to_string(config.mode), describe_capabilities());
    return;
  }
  if (config.mode == BpfStatsMode::always) {
    always_.reset(bpf_enable_stats(BPF_STATS_RUN_TIME));
    if (!always_.valid()) {
      spdlog::warn("enabling BPF statistics failed: {} (errno {}); continuing without them",
                   std::strerror(errno), errno);
    } else {
      spdlog::info("bpf_stats.mode=always: BPF statistics enabled for the exporter's lifetime");
    }
    return;
  }
  sampler_ = std::make_unique<StatsSampler>(config.window, config.period);
}

bool BpfStatsControl::exporter_enabled() {
  if (always_.valid()) return true;
  return sampler_ && sampler_->window_open();
}

}  // namespace netif_rx
