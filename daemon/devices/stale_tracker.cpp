#include "devices/stale_tracker.h"

namespace netif_rx {

bool StaleTracker::stale(const netif_rx_device_key& key, std::uint64_t packets,
                         Clock::time_point now) {
  auto [it, inserted] = entries_.try_emplace(key);
  Entry& entry = it->second;
  entry.seen = true;
  if (inserted || entry.packets != packets) {
    entry.packets = packets;
    entry.changed = now;
    return false;
  }
  return now - entry.changed >= limit_;
}

void StaleTracker::end_poll() {
  std::erase_if(entries_, [](const auto& entry) { return !entry.second.seen; });
  for (auto& [key, entry] : entries_) entry.seen = false;
}

}  // namespace netif_rx
