// namespaces: all: when each device of another namespace last moved, so that
// the poller can forget those idle for stale_after (their device or their
// whole namespace may be gone, which can't be observed from here).
#pragma once

#include <chrono>
#include <cstdint>

#include "devices/device_table.h"
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
  void forget(const netif_rx_device_key& key) { entries_.remove(key); }
  // Forgets every key not passed to stale() since the last call: memory stays
  // bounded by the map's entries.
  void end_poll();

  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::uint64_t packets = 0;
    Clock::time_point changed{};
    std::uint64_t seen = 0;  // the last poll (poll_) that passed it to stale()
  };
  std::chrono::milliseconds limit_;
  DeviceTable<Entry> entries_;
  std::uint64_t poll_ = 1;  // counted by end_poll()
};

}  // namespace netif_rx
