// When the kernel's BPF statistics are on in bpf_stats.mode sampled: a
// window of `window` at the start of every `period`, the first at `start`.
// Pure: time is passed in, so tests drive it with a fake clock.
#pragma once

#include <chrono>

#include "util/duration.h"

namespace netif_rx {

class SamplingSchedule {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  // Requires 0 < window < period.
  SamplingSchedule(Milliseconds window, Milliseconds period, TimePoint start);

  // True while `now` lies inside a window [start + k*period, +window).
  bool in_window(TimePoint now) const;
  // The next instant after `now` at which a window opens or closes.
  TimePoint next_change(TimePoint now) const;
  // Share of the time statistics are on: window / period.
  double duty_cycle() const;

 private:
  Milliseconds window_;
  Milliseconds period_;
  TimePoint start_;
};

}  // namespace netif_rx
