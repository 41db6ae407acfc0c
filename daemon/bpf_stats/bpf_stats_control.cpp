#include "bpf_stats/bpf_stats_control.h"

#include <bpf/bpf.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>

#include "sys/privileges.h"
#include "util/log.h"

namespace netif_rx {

BpfStatsControl::BpfStatsControl(const BpfStatsConfig& config) {
  if (config.mode == BpfStatsMode::off) {
    log::info(
        "bpf_stats.mode=off: BPF statistics are not enabled by the exporter; run time and run "
        "count move only while something else enables them");
    return;
  }
  if (!can_enable_bpf_stats()) {
    log::warn(
        "CAP_SYS_ADMIN is needed to enable the kernel's BPF statistics; continuing without them "
        "(netif_rx_bpf_stats_enabled 0)",
        {{"bpf_stats_mode", to_string(config.mode)}, {"capabilities", describe_capabilities()}});
    return;
  }
  if (config.mode == BpfStatsMode::always) {
    always_.reset(bpf_enable_stats(BPF_STATS_RUN_TIME));
    if (!always_.valid()) {
      log::warn("enabling BPF statistics failed; continuing without them",
                {{"err", std::strerror(errno)}, {"errno", errno}});
    } else {
      log::info("BPF statistics enabled for the exporter's lifetime",
                {{"bpf_stats_mode", "always"}});
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
