// The warning that the probe's device map is full, at most once per interval,
// with the number of untracked packets since the previous warning.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace netif_rx {

class UntrackedWarning {
 public:
  using Clock = std::chrono::steady_clock;

  explicit UntrackedWarning(std::chrono::milliseconds interval = std::chrono::minutes(1))
      : interval_(interval) {}

  // `total`: untracked packets since the probe was attached. Returns the
  // packets to report when a warning is due now.
  std::optional<std::uint64_t> update(std::uint64_t total, Clock::time_point now);

 private:
  std::chrono::milliseconds interval_;
  std::uint64_t reported_ = 0;
  std::optional<Clock::time_point> last_warning_;
};

}  // namespace netif_rx
