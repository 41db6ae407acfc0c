// The shell around PollStep: every poll interval, reads the probe's maps and
// the links, runs the step, applies its deletions, publishes its snapshot and
// counts its errors. Owns the only thread that changes the kernel's maps: devices
// the link watcher saw go reach it through a RemovalQueue.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "config/config.h"
#include "continuity/program_runs_barrier.h"
#include "devices/link_table.h"
#include "napi/napi_series.h"
#include "pipeline/carried_devices.h"
#include "pipeline/poll_observer.h"
#include "pipeline/poll_step.h"
#include "pipeline/released_snapshots.h"
#include "pipeline/removal_queue.h"
#include "pipeline/snapshot_store.h"
#include "probe/map_reader.h"
#include "probe/netns_blocks.h"
#include "routes/route_series.h"

namespace netif_rx {

struct PollerOptions : PollStepOptions {
  Milliseconds interval{1000};
};

// The current links of the exporter's namespace (LinkWatcher::view).
using LinkViewSource = std::function<std::shared_ptr<const LinkView>()>;

// Reads the probe's own cost, given the number of keys the poll found in the
// per-device map and in the drop and NAPI counters' (see BpfStatsReader).
using BpfStatsSource = std::function<BpfStatsSnapshot(std::size_t device_entries,
                                                      const HashMapEntries& other_entries)>;

// Reads the drops on the receive path, given the series max_series leaves
// to them (see build_drops_snapshot)
// and which devices are exported (devices.include / devices.exclude).
using DropsSource =
    std::function<DropsSnapshot(std::size_t budget, const DeviceExported& exported)>;

// Reads the NAPI polls, given the series max_series leaves to them (see
// build_napi_snapshot) and the devices of the per-CPU class as this poll
// exports them.
using NapiSource =
    std::function<NapiSnapshot(std::size_t budget, const PerCpuDeviceLabels& labels)>;

// Reads the packets by RX queue and the steered packets, given the series
// max_series leaves to them (see build_route_snapshot) and the devices of the
// per-CPU class as this poll exports them.
using RouteSource =
    std::function<RouteSnapshot(std::size_t budget, const PerCpuDeviceLabels& labels)>;

class Poller {
 public:
  // `removals`: devices of this namespace that are gone (from the link
  // watcher); the poller wakes for them and deletes their entries.
  Poller(MapReader reader, PollerOptions options, LinkViewSource host_links, SnapshotStore& store,
         PollObserver& metrics, std::shared_ptr<RemovalQueue> removals = {});
  ~Poller();
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;

  // Puts the probe's own cost into each snapshot from now on. Optional; call
  // before start().
  void set_bpf_stats_source(BpfStatsSource source) { bpf_stats_ = std::move(source); }

  // Puts the drops on the receive path into each snapshot from now on.
  // Optional; call before start().
  void set_drops_source(DropsSource source) { drops_ = std::move(source); }

  // Puts the NAPI polls into each snapshot from now on. Optional; call
  // before start().
  void set_napi_source(NapiSource source) { napi_ = std::move(source); }

  // Puts the packets by RX queue and the steered packets into each snapshot
  // from now on. Optional; call before start().
  void set_route_source(RouteSource source) { routes_ = std::move(source); }

  // Told, once per poll, the devices whose entries the poll deleted (gone,
  // or idle past stale_after): the other counters' entries of them can go
  // too. Optional; call before start().
  using ForgottenDevicesSink = std::function<void(const std::vector<netif_rx_device_key>&)>;
  void set_forgotten_devices_sink(ForgottenDevicesSink sink) { forgotten_sink_ = std::move(sink); }

  // Adds the counts carried over from a probe of another layout to every
  // poll from now on. Optional; call before start().
  void set_carried(CarriedDevices carried) { carried_ = std::move(carried); }

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
  // Applies a new interval from the next wait on (configuration reload).
  void set_interval(Milliseconds interval);
  // Applies new device filters and stale_after from the next poll on, on the
  // polling thread (configuration reload).
  void set_devices(DeviceFilterConfig devices, Milliseconds stale_after, PerCpuConfig per_cpu,
                   std::uint32_t max_series);

  // Monotonic time of the last successful poll (zero before the first).
  std::chrono::steady_clock::time_point last_success() const;

 private:
  void run();
  void apply_pending_reload();

  // What one part of a poll gives, and its errors: each part collects its
  // errors, report() alone logs and counts them.
  template <typename T>
  struct Outcome {
    T value;
    std::vector<PollError> errors;
  };

  // Reads the maps and the links, runs the step and applies its deletions;
  // nullopt when the counters could not be read (nothing to publish).
  Outcome<std::optional<PollResult>> read_and_run_step(
      std::chrono::steady_clock::time_point started);
  // Deletes the entries of the devices the link watcher saw go, at once (on
  // the polling thread, woken for it), so that a device that gets the same
  // ifindex later starts from zero.
  std::vector<PollError> apply_removals();
  std::vector<PollError> forget_removed_device(std::uint32_t ifindex);
  // Nullopt when the counters could not be read.
  Outcome<std::optional<MapContents>> read_maps(const LinkView& links);
  // Adds the slots of the devices in `after` (the view taken after the read)
  // that `before` did not have to `contents`.
  std::vector<PollError> read_new_host_slots(const LinkView& before, const LinkView& after,
                                             MapContents& contents);
  // The names the probe recorded, in every-namespace mode only.
  std::vector<PollError> read_names(MapContents& contents);
  std::vector<PollError> apply_deletions(const std::vector<MapDeletion>& deletions);
  // Other namespaces' blocks (namespaces: all): adds the slots of placed
  // namespaces to `contents` (a device's slot and hash entry summed).
  std::vector<PollError> read_netns_blocks(MapContents& contents);
  // Reads the last counts of the blocks retired at an earlier poll, zeroes
  // and frees them: a slot's counts are carried to its device (the poll's
  // read adds them with the other carried counts), a block of a namespace
  // not known gives its counts to the removed ones.
  std::vector<PollError> drain_netns_blocks();
  // One block: false when a read or a zeroing failed (drained again later).
  bool drain_block(const PlacedNetns& retiring, std::vector<PollError>& errors);
  // Retires the blocks of namespaces this poll read no entry of, and places
  // namespaces with hash entries in free blocks (NetnsBlocks::plan).
  std::vector<PollError> place_netns_blocks();
  // Writes the removed counters into the probe's map when they changed, so
  // that the next exporter of a pinned probe goes on from them.
  std::vector<PollError> persist_removed();
  // Logs and counts each error (reason: map_read, map_delete,
  // name_resolution); true when there is none.
  bool report(const std::vector<PollError>& errors);
  // Logs the step's warnings and publishes its snapshot.
  void publish(PollResult result);
  void finish(bool ok, std::chrono::steady_clock::time_point started);

  MapReader reader_;
  PollerOptions options_;
  std::function<void()> after_success_;
  std::function<void()> on_thread_start_;
  LinkViewSource host_links_;
  PollStep step_;
  DeviceFilter drops_filter_;                         // options_.devices, for the drops' devices
  std::vector<netif_rx_counters> persisted_removed_;  // as last written to the map
  CarriedDevices carried_;
  bool read_every_slot_ = true;              // the first read: see read_maps
  bool slots_read_all_ = false;              // this poll's read took every slot
  std::optional<NetnsBlocks> netns_blocks_;  // namespaces: all, with blocks
  // Waited on before a retired block is drained (made with netns_blocks_,
  // while the thread may still create maps).
  std::optional<ProgramRunsBarrier> runs_barrier_;
  // Of this poll's read, for place_netns_blocks: the other namespaces that
  // have an entry, and those with a hash entry a block would take.
  std::vector<NetnsId> netns_present_;
  std::vector<NetnsId> netns_wanted_;
  std::shared_ptr<RemovalQueue> removals_;
  BpfStatsSource bpf_stats_;
  DropsSource drops_;
  NapiSource napi_;
  RouteSource routes_;
  ForgottenDevicesSink forgotten_sink_;
  std::vector<netif_rx_device_key> forgotten_;  // this poll's, for forgotten_sink_
  SnapshotStore& store_;
  std::shared_ptr<ReleasedSnapshots> released_ = std::make_shared<ReleasedSnapshots>();
  PollObserver& metrics_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool interval_changed_ = false;
  bool removal_pending_ = false;
  struct PendingDevices {
    DeviceFilterConfig devices;
    Milliseconds stale_after;
    PerCpuConfig per_cpu;
    std::uint32_t max_series;
  };
  std::optional<PendingDevices> pending_devices_;  // guarded by mutex_
  std::chrono::steady_clock::time_point last_success_{};
  std::thread thread_;
};

}  // namespace netif_rx
