// Who turns the kernel's BPF run-time statistics on, per bpf_stats.mode:
// off: nobody (what the kernel reports is still exported); always: this
// process, holding a BPF_ENABLE_STATS fd for its lifetime; sampled: the
// helper process of StatsSampler, for a window every period.
#pragma once

#include <sys/types.h>

#include <memory>

#include "bpf_stats/stats_sampler.h"
#include "config/config.h"
#include "util/unique_fd.h"

namespace netif_rx {

class BpfStatsControl {
 public:
  // Runs before capabilities are dropped and before any thread starts
  // (sampled forks). Without CAP_SYS_ADMIN it says so once in the log and
  // enables nothing; it never fails the exporter.
  explicit BpfStatsControl(const BpfStatsConfig& config);

  // True while the exporter knows statistics are on through its own fd or
  // its helper's window. Called by the poller thread only.
  bool exporter_enabled();

 private:
  UniqueFd always_;
  std::unique_ptr<StatsSampler> sampler_;
};

}  // namespace netif_rx
