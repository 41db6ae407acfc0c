#include "pipeline/untracked_warning.h"

namespace netif_rx {

std::optional<std::uint64_t> UntrackedWarning::update(std::uint64_t total, Clock::time_point now) {
  if (total <= reported_) return std::nullopt;
  if (last_warning_ && now - *last_warning_ < interval_) return std::nullopt;
  const std::uint64_t pending = total - reported_;
  reported_ = total;
  last_warning_ = now;
  return pending;
}

}  // namespace netif_rx
