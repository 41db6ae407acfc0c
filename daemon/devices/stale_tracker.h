// namespaces: all: when each device of another namespace last moved, so that
// the poller can forget those idle for stale_after (their device or their
// whole namespace may be gone, which can't be observed from here).
#pragma once

#include <chrono>
#include <cstdint>
#include <unordered_map>

#include "probe/map_reader.h"

namespace netif_rx {

class StaleTracker {
 public:
  using Clock = std::chrono::steady_clock;

  explicit StaleTracker(std::chrono::milliseconds limit) : limit_(limit) {}
  // A new limit (configuration reload); what was seen so far is kept.
  void set_limit(std::chrono::milliseconds limit) { limit_ = limit; }

  // Records `packets` (summed over CPUs) for `key` at `now`. True when the
  // count has not changed for at least the limit.
  bool stale(const netif_rx_device_key& key, std::uint64_t packets, Clock::time_point now);
  // Forgets `key` (its entries were deleted).
  void forget(const netif_rx_device_key& key) { entries_.erase(key); }
  // Forgets every key not passed to stale() since the last call: memory stays
  // bounded by the map's entries.
  void end_poll();

  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::uint64_t packets = 0;
    Clock::time_point changed{};
    bool seen = false;
  };
  std::chrono::milliseconds limit_;
  std::unordered_map<netif_rx_device_key, Entry, DeviceKeyHash> entries_;
};

}  // namespace netif_rx
