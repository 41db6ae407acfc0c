// Reads the probe's maps every poll interval, names the devices, and
// publishes an immutable snapshot. Owns the only thread that touches the
// kernel's maps after startup.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "config.h"
#include "map_reader.h"
#include "self_metrics.h"
#include "snapshot_store.h"

namespace netif_rx {

struct PollerOptions {
  Milliseconds interval{1000};
  NamespaceMode namespaces = NamespaceMode::host;
  std::uint32_t host_netns_inum = 0;
};

class Poller {
 public:
  Poller(MapReader reader, PollerOptions options, SnapshotStore& store, SelfMetrics& metrics);
  ~Poller();
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;

  // One poll, on the caller's thread. Returns false when it failed.
  bool poll_once();
  // Polls every interval on a thread of its own until stop().
  void start();
  void stop();
  // Called after every successful poll, on the polling thread (the systemd
  // watchdog ping: a stuck poller stops it). Set before start().
  void set_after_success(std::function<void()> callback) { after_success_ = std::move(callback); }
  // Applies a new interval from the next wait on (configuration reload).
  void set_interval(Milliseconds interval);

  // Monotonic time of the last successful poll (zero before the first).
  std::chrono::steady_clock::time_point last_success() const;

 private:
  void run();

  MapReader reader_;
  PollerOptions options_;
  std::function<void()> after_success_;
  SnapshotStore& store_;
  SelfMetrics& metrics_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool interval_changed_ = false;
  std::chrono::steady_clock::time_point last_success_{};
  std::thread thread_;
};

}  // namespace netif_rx
