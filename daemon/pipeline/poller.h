// Reads the probe's maps every poll interval, names the devices, and
// publishes an immutable snapshot. Owns the only thread that touches the
// kernel's maps after startup: devices the link watcher saw go reach it
// through a RemovalQueue, and it deletes their entries.
//
// Identity: no two series share (netns, name). In the exporter's namespace
// the kernel's names are unique. In other namespaces the newest entry of a
// (netns, name) holds the name (first seen by a later poll, or a higher
// ifindex when seen by the same poll); older ones are removed. Every entry
// removed from the map adds its last read counts to the removed counters.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "config/config.h"
#include "devices/device_filter.h"
#include "devices/link_table.h"
#include "devices/stale_tracker.h"
#include "metrics/self_metrics.h"
#include "pipeline/removal_queue.h"
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
         SelfMetrics& metrics, std::shared_ptr<RemovalQueue> removals = {});
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
  // Applies a new interval from the next wait on (configuration reload).
  void set_interval(Milliseconds interval);
  // Applies new device filters and stale_after from the next poll on, on the
  // polling thread (configuration reload).
  void set_devices(DeviceFilterConfig devices, Milliseconds stale_after);

  // Monotonic time of the last successful poll (zero before the first).
  std::chrono::steady_clock::time_point last_success() const;

 private:
  using NameMap = std::unordered_map<netif_rx_device_key, std::string, DeviceKeyHash>;
  // What one poll read, in the order it read it.
  struct PollRead {
    std::vector<netif_rx_counters> counted;
    std::vector<DeviceCounters> devices;
    std::vector<netif_rx_counters> untracked;
    LinkView links_before;
    LinkView links_after;
    NameMap names;  // namespaces: all only
  };
  // A device's name this poll, or why it has none.
  struct Naming {
    enum class Fate { show, hide, remove } fate = Fate::hide;
    std::string name;
  };

  void run();
  bool read_maps(PollRead& read, bool& ok);
  // Deletes the entries of the devices the link watcher saw go, at once (on
  // the polling thread, woken for it), so that a device that gets the same
  // ifindex later starts from zero.
  void apply_removals();
  std::vector<DeviceSeries> name_devices(PollRead& read, std::chrono::steady_clock::time_point now,
                                         bool& ok);
  Naming name_host_device(std::uint32_t ifindex, const PollRead& read, bool& ok);
  Naming name_other_device(const DeviceCounters& device, const NameMap& names,
                           std::chrono::steady_clock::time_point now);
  // Keeps one series per (netns, name): the newest (see the identity rule).
  void keep_newest_per_name(std::vector<DeviceSeries>& series);
  // Deletes a device's entries; its counts go to the removed counters.
  void remove(const netif_rx_device_key& key, const std::vector<netif_rx_counters>& per_cpu);
  void warn_untracked(const std::vector<netif_rx_counters>& untracked,
                      std::chrono::steady_clock::time_point now);
  // Deletes names that had no counters entry at this poll and the last one:
  // left over when a device's entry was deleted while the probe was creating
  // it. Two polls, because the probe records a new device's name just before
  // its counters, which this poll may have read in between.
  void sweep_orphan_names(const std::vector<DeviceCounters>& counters, const NameMap& names);

  MapReader reader_;
  PollerOptions options_;
  std::function<void()> after_success_;
  LinkViewSource host_links_;
  CachedDeviceFilter filter_;
  StaleTracker stale_;
  UntrackedWarning untracked_warning_;
  // namespaces: all: names recorded without a counters entry at the last poll.
  std::unordered_set<netif_rx_device_key, DeviceKeyHash> orphan_names_;
  // namespaces: all: entries without a name at the last poll.
  std::unordered_set<netif_rx_device_key, DeviceKeyHash> unnamed_;
  // The poll that first read each entry (the identity rule's "newest").
  std::unordered_map<netif_rx_device_key, std::uint64_t, DeviceKeyHash> first_seen_;
  std::uint64_t polls_ = 0;
  std::vector<netif_rx_counters> removed_per_cpu_;  // accumulated by remove()
  std::shared_ptr<RemovalQueue> removals_;
  BpfStatsSource bpf_stats_;
  SnapshotStore& store_;
  SelfMetrics& metrics_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool interval_changed_ = false;
  bool removal_pending_ = false;
  struct PendingDevices {
    DeviceFilterConfig devices;
    Milliseconds stale_after;
  };
  std::optional<PendingDevices> pending_devices_;  // guarded by mutex_
  std::chrono::steady_clock::time_point last_success_{};
  std::thread thread_;
};

}  // namespace netif_rx
