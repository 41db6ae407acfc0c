// Devices of the exporter's namespace that the link watcher saw go, handed
// to the polling thread, the one owner of map mutation. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_set>

namespace netif_rx {

class RemovalQueue {
 public:
  // Queues a gone device and calls the listener (the poller's wake-up).
  // Bounded by the ifindexes in use: a repeated ifindex is kept once.
  void push(std::uint32_t ifindex) {
    {
      std::lock_guard lock(mutex_);
      pending_.insert(ifindex);
    }
    std::lock_guard lock(listener_mutex_);
    if (listener_) listener_();
  }
  std::unordered_set<std::uint32_t> take() {
    std::lock_guard lock(mutex_);
    std::unordered_set<std::uint32_t> taken;
    taken.swap(pending_);
    return taken;
  }
  // Once set to nothing, the old listener is never called again.
  void set_listener(std::function<void()> listener) {
    std::lock_guard lock(listener_mutex_);
    listener_ = std::move(listener);
  }

 private:
  std::mutex mutex_;
  std::unordered_set<std::uint32_t> pending_;
  std::mutex listener_mutex_;  // taken before the listener's own locks
  std::function<void()> listener_;
};

}  // namespace netif_rx
