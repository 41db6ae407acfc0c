// Reads the probe's maps every poll interval, names the devices, and
// publishes an immutable snapshot. Owns the only thread that touches the
// kernel's maps after startup.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_set>

#include "config/config.h"
#include "devices/device_filter.h"
#include "devices/link_table.h"
#include "devices/stale_tracker.h"
#include "metrics/self_metrics.h"
#include "pipeline/removed_devices.h"
#include "pipeline/snapshot_store.h"
#include "pipeline/untracked_warning.h"
#include "probe/map_reader.h"

namespace netif_rx {

struct PollerOptions {
  Milliseconds interval{1000};
  NamespaceMode namespaces = NamespaceMode::host;
  std::uint32_t host_netns_inum = 0;
  std::uint32_t max_devices = NETIF_RX_DEFAULT_MAX_DEVICES;  // named in the map-full warning
  Milliseconds stale_after{600000};  // namespaces: all, devices of other namespaces
  DeviceFilterConfig devices;        // which devices are exported
};

// The current links of the exporter's namespace (LinkWatcher::view).
using LinkViewSource = std::function<LinkView()>;

// Reads the probe's own cost, given the number of keys the poll found in the
// per-device map (see BpfStatsReader).
using BpfStatsSource = std::function<BpfStatsSnapshot(std::size_t device_entries)>;

class Poller {
 public:
  Poller(MapReader reader, PollerOptions options, LinkViewSource host_links, SnapshotStore& store,
         SelfMetrics& metrics);
  ~Poller();
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;

  // Puts the probe's own cost into each snapshot from now on. Optional; call
  // before start().
  void set_bpf_stats_source(BpfStatsSource source) { bpf_stats_ = std::move(source); }

  // One poll, on the caller's thread. Returns false when it failed.
  bool poll_once();
  // Polls every interval on a thread of its own until stop().
  void start();
  void stop();
  // Called after every successful poll, on the polling thread (the systemd
  // watchdog ping: a stuck poller stops it). Set before start().
  void set_after_success(std::function<void()> callback) { after_success_ = std::move(callback); }
  // Called first on the polling thread when it starts (naming the thread and
  // telling who keeps capabilities). Set before start().
  void set_on_thread_start(std::function<void()> callback) {
    on_thread_start_ = std::move(callback);
  }
  // Devices of this namespace gone since the last poll: their entries are
  // deleted by the next poll, after it took its first view of the links.
  void set_removed_devices(std::shared_ptr<RemovedDevices> removed) {
    removed_ = std::move(removed);
  }
  // Applies a new interval from the next wait on (configuration reload).
  void set_interval(Milliseconds interval);
  // Applies new device filters and stale_after from the next poll on, on the
  // polling thread (configuration reload).
  void set_devices(DeviceFilterConfig devices, Milliseconds stale_after);

  // Monotonic time of the last successful poll (zero before the first).
  std::chrono::steady_clock::time_point last_success() const;

 private:
  void run();
  void forget(const netif_rx_device_key& key);
  void delete_removed_devices();
  // Deletes names that had no counters entry at this poll and the last one:
  // left over when a device's entry was deleted while the probe was creating
  // it. Two polls, because the probe writes a new device's name just after
  // its counters, which this poll may have read before.
  void sweep_orphan_names(
      const std::vector<DeviceCounters>& counters,
      const std::unordered_map<netif_rx_device_key, std::string, DeviceKeyHash>& names);

  MapReader reader_;
  PollerOptions options_;
  std::function<void()> after_success_;
  std::function<void()> on_thread_start_;
  std::shared_ptr<RemovedDevices> removed_;
  LinkViewSource host_links_;
  CachedDeviceFilter filter_;
  StaleTracker stale_;
  UntrackedWarning untracked_warning_;
  // namespaces: all: names recorded without a counters entry at the last poll.
  std::unordered_set<netif_rx_device_key, DeviceKeyHash> orphan_names_;
  BpfStatsSource bpf_stats_;
  SnapshotStore& store_;
  SelfMetrics& metrics_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool interval_changed_ = false;
  struct PendingDevices {
    DeviceFilterConfig devices;
    Milliseconds stale_after;
  };
  std::optional<PendingDevices> pending_devices_;  // guarded by mutex_
  std::chrono::steady_clock::time_point last_success_{};
  std::thread thread_;
};

}  // namespace netif_rx
