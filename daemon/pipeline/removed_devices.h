// Devices of the exporter's namespace that disappeared, handed from the link
// watcher's thread to the polling thread, which deletes their map entries:
// on kernels before 5.19 with kernel.unprivileged_bpf_disabled set, the only
// thread that may use bpf(2) after startup.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

namespace netif_rx {

class RemovedDevices {
 public:
  // Bounded: past `kMax` pending ifindexes the oldest are dropped (the poll
  // still deletes an entry whose device is gone when it can't name it).
  static constexpr std::size_t kMax = 65536;

  void push(std::uint32_t ifindex) {
    std::lock_guard lock(mutex_);
    if (pending_.size() >= kMax) pending_.pop_front();
    pending_.push_back(ifindex);
  }
  std::vector<std::uint32_t> take() {
    std::lock_guard lock(mutex_);
    std::vector<std::uint32_t> out(pending_.begin(), pending_.end());
    pending_.clear();
    return out;
  }

 private:
  std::mutex mutex_;
  std::deque<std::uint32_t> pending_;
};

}  // namespace netif_rx
