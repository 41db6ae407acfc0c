// Hands the latest snapshot from the poller to scrapes. A scrape only copies
// a pointer under the lock: it never waits for a poll, nor for the release
// of the snapshot a publish replaced (the publisher's, outside the lock).
#pragma once

#include <memory>
#include <mutex>

#include "pipeline/snapshot.h"

namespace netif_rx {

class SnapshotStore {
 public:
  std::shared_ptr<const Snapshot> latest() const {
    std::lock_guard lock(mutex_);
    return latest_;
  }
  // Returns the snapshot it replaced.
  std::shared_ptr<const Snapshot> publish(std::shared_ptr<const Snapshot> snapshot) {
    std::lock_guard lock(mutex_);
    latest_.swap(snapshot);
    return snapshot;
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const Snapshot> latest_ = std::make_shared<const Snapshot>();
};

}  // namespace netif_rx
