#include "bpf_stats/sampling_schedule.h"

namespace netif_rx {

SamplingSchedule::SamplingSchedule(Milliseconds window, Milliseconds period, TimePoint start)
    : window_(window), period_(period), start_(start) {}

bool SamplingSchedule::in_window(TimePoint now) const {
  if (now < start_) return false;
  return (now - start_) % period_ < window_;
}

SamplingSchedule::TimePoint SamplingSchedule::next_change(TimePoint now) const {
  if (now < start_) return start_;
  const auto since = now - start_;
  const auto period_start = now - since % period_;
  const auto close = period_start + window_;
  return now < close ? close : period_start + period_;
}

double SamplingSchedule::duty_cycle() const {
  return static_cast<double>(window_.count()) / static_cast<double>(period_.count());
}

}  // namespace netif_rx
