// bpf_stats.mode sampled: a helper process that only toggles the kernel's
// BPF run-time statistics, so that the exporter itself can hold no
// capability at all.
//
// Forked before the exporter drops its capabilities (while it still has a
// single thread), the helper keeps CAP_SYS_ADMIN alone (bounding set
// included), sets no_new_privs, closes every descriptor but two pipes, and
// then loops: at each window it calls BPF_ENABLE_STATS and holds the fd
// for the window, then closes it. It reports '1' (window open), '0'
// (closed) or 'E'+errno (enabling failed) on the report pipe. It dies with
// the exporter: PR_SET_PDEATHSIG, and end-of-file on the life pipe whose
// write end only the exporter holds.
#pragma once

#include <sys/types.h>

#include <memory>

#include "util/duration.h"
#include "util/unique_fd.h"

namespace netif_rx {

class StatsSampler {
 public:
  // Forks the helper. Throws std::runtime_error when fork or pipe fail.
  StatsSampler(Milliseconds window, Milliseconds period);
  // Closes the life pipe and reaps the helper (its stats fd closes with it).
  ~StatsSampler();
  StatsSampler(const StatsSampler&) = delete;
  StatsSampler& operator=(const StatsSampler&) = delete;

  // Drains the helper's reports (never blocks) and says whether a window is
  // open now. Logs a failure to enable, or the helper's death, once.
  bool window_open();

 private:
  pid_t helper_ = -1;
  UniqueFd life_;    // write end: closing it tells the helper to exit
  UniqueFd report_;  // read end, non-blocking
  bool open_ = false;
  bool gone_ = false;
  bool failure_logged_ = false;
};

}  // namespace netif_rx
