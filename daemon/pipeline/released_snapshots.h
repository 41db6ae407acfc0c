// The snapshots the poller published that the store and every scrape have
// let go of, handed back by the deleter of each snapshot's shared_ptr (in
// whichever thread dropped it last) to the poller, which reuses their
// buffers. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "pipeline/snapshot.h"

namespace netif_rx {

class ReleasedSnapshots {
 public:
  // Called from a deleter: never throws (without memory to keep it, the
  // snapshot is freed here).
  void add(std::unique_ptr<Snapshot> snapshot) noexcept {
    std::lock_guard lock(mutex_);
    try {
      released_.push_back(std::move(snapshot));
    } catch (...) {
    }
  }
  std::vector<std::unique_ptr<Snapshot>> take() {
    std::lock_guard lock(mutex_);
    return std::exchange(released_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<Snapshot>> released_;
};

}  // namespace netif_rx
