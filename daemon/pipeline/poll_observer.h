// What the polling thread reports about each poll. Declared here, implemented
// by the metrics layer (SelfMetrics), so that the pipeline never depends on
// how its figures are exported.
#pragma once

#include <string>

namespace netif_rx {

class PollObserver {
 public:
  virtual ~PollObserver() = default;

  // A failed map access or name resolution; reason: map_read, map_delete,
  // name_resolution.
  virtual void count_poll_error(const std::string& reason) = 0;
  // How long a poll took, failed or not.
  virtual void observe_poll(double seconds) = 0;
  // Unix time of the last successful poll.
  virtual void set_last_poll_timestamp(double unix_seconds) = 0;
};

}  // namespace netif_rx
