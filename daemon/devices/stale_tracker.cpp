#include "devices/stale_tracker.h"

namespace netif_rx {

bool StaleTracker::stale(const netif_rx_device_key& key, std::uint64_t packets,
                         Clock::time_point now) {
  const auto [id, added] = entries_.find_or_add(key, Entry{packets, now, poll_});
  Entry& entry = entries_[id];
  entry.seen = poll_;
  if (added || entry.packets != packets) {
    entry.packets = packets;
    entry.changed = now;
    return false;
  }
  return now - entry.changed >= limit_;
}

void StaleTracker::end_poll() {
  entries_.remove_if([this](const Entry& entry) { return entry.seen != poll_; });
  ++poll_;
}

}  // namespace netif_rx
