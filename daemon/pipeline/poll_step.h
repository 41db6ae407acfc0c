// One poll as a pure step: from what was read (the maps' contents, the links
// of the exporter's namespace around the read) and the state kept between
// polls, to the snapshot to publish, the map entries to delete and the
// problems to report. No syscalls: the Poller reads the kernel, runs the
// step and applies its result. Runs on the polling thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "config/config.h"
#include "devices/device_filter.h"
#include "devices/device_table.h"
#include "devices/link_table.h"
#include "devices/stale_tracker.h"
#include "pipeline/snapshot.h"
#include "pipeline/untracked_warning.h"
#include "probe/map_reader.h"

namespace netif_rx {

struct PollStepOptions {
  NamespaceMode namespaces = NamespaceMode::host;
  std::uint32_t host_netns_inum = 0;
  std::uint32_t max_devices = NETIF_RX_DEFAULT_MAX_DEVICES;  // named in the map-full warning
  Milliseconds stale_after{600000};  // namespaces: all, devices of other namespaces
  DeviceFilterConfig devices;        // which devices are exported
  PerCpuConfig per_cpu;              // which devices keep per-CPU series
  std::uint32_t max_series = 20000;  // past it, the devices seen last fold
  // How long a device of the own namespace that if_indextoname() finds gone
  // stays before its entry is deleted (see PollStep::gone_since_): far beyond
  // the kernel's unregistration (unlisted, its backlogs flushed, then
  // synchronize_net()), and at least a poll.
  Milliseconds gone_grace{1000};
};

// The series a device costs in the data families: packets, skbs and bytes by
// CPU from each CPU's first packet (per-CPU class) or summed, and its busiest
// CPU's counter.
std::size_t device_series(const DeviceSeries& device);

// What the poll read from the probe's maps, as plain data.
struct MapContents {
  // The probe's own total, read before the rest: every packet in it is in
  // what follows (or in an entry removed since).
  std::vector<netif_rx_counters> counted_per_cpu;
  std::vector<DeviceCounters> device_counters;  // the hash: other namespaces, large ifindexes
  // The array slots that counted packets, keyed like the hash: the own
  // namespace's (MapReader::read_host_slots; an ifindex is in the array or
  // the hash) and other namespaces' block slots of devices without a hash
  // entry (one with both has them summed in device_counters).
  std::vector<DeviceCounters> host_slots;
  DeviceNames device_names;  // namespaces: all only (empty otherwise)
  std::vector<netif_rx_counters> untracked_per_cpu;
  std::vector<GsoFallbacks> gso_fallbacks;
};

// The kernel's answer for an ifindex the link views did not know.
struct KernelLinkName {
  enum class Kind { found, gone, failed };
  Kind kind = Kind::failed;
  std::string name;  // found
  int error = 0;     // failed: errno
};
using KernelLinkNameLookup = std::function<KernelLinkName(std::uint32_t ifindex)>;

// The links of the exporter's namespace before and after the map read: a
// device is shown only if the same device held its ifindex in both (see
// resolve_host_name), so a count read just before a deletion never appears
// under a successor's name.
struct HostLinks {
  std::shared_ptr<const LinkView> before = std::make_shared<const LinkView>();
  std::shared_ptr<const LinkView> after = before;  // often the same view
  KernelLinkNameLookup ask_kernel;                 // for an ifindex in neither view
};

// An entry the step wants removed from the maps.
struct MapDeletion {
  enum class Scope {
    device,     // counters and name (MapReader::delete_device)
    name_only,  // a recorded name without counters (MapReader::delete_name)
  };
  netif_rx_device_key key{};
  Scope scope = Scope::device;
  std::string why;  // for the debug log
};

// A failure of this poll: logged, counted in netif_rx_poll_errors_total{reason}.
struct PollError {
  std::string reason;  // the metric's label, e.g. "name_resolution"
  std::string message;
};

struct PollResult {
  Snapshot snapshot;  // devices and the totals; the shell adds cpus and bpf
  // The per-CPU vectors of the devices the snapshot holds summed, for the
  // next read to fill (MapReader::recycle).
  std::vector<std::vector<netif_rx_counters>> spare_per_cpu;
  std::vector<MapDeletion> deletions;
  std::vector<PollError> errors;
  std::vector<std::string> warnings;  // logged only
  std::size_t device_entries = 0;     // hash entries left once the deletions are done
};

// Identity: no two series share (netns, name). In the exporter's namespace
// the kernel's names are unique. In other namespaces the newest entry of a
// (netns, name) holds the name (first read by a later poll; read first by the
// same poll: the higher ifindex, as the kernel hands them out increasing,
// then the higher salt); older ones are removed. Entries of one (netns inode,
// ifindex) with different salts are different devices: a namespace that got
// a dead one's inode number (see netif_rx_device_key), whose device so starts
// from zero instead of continuing the dead one's count. Every entry removed
// adds its last read counts to the removed counters, so that counted =
// exported + untracked + removed.
class PollStep {
 public:
  using Clock = std::chrono::steady_clock;

  explicit PollStep(PollStepOptions options);

  // New device filters and stale_after (configuration reload).
  void reconfigure(DeviceFilterConfig devices, Milliseconds stale_after);
  // The same, with the per-CPU classes and max_series.
  void reconfigure(DeviceFilterConfig devices, Milliseconds stale_after, PerCpuConfig per_cpu,
                   std::uint32_t max_series);

  PollResult run(MapContents contents, const HostLinks& links, Clock::time_point now);

  // Counts of an entry removed outside run() (a device the link watcher saw
  // go), as read just before its deletion.
  void account_removed(const netif_rx_device_key& key,
                       const std::vector<netif_rx_counters>& per_cpu);

  // Counts of no device any more (a drained block's last counts).
  void add_removed(const std::vector<netif_rx_counters>& per_cpu);

  // The removed counters an earlier exporter of the same (pinned) probe
  // kept in its map: the sum goes on from them.
  void restore_removed(std::vector<netif_rx_counters> per_cpu) {
    removed_per_cpu_ = std::move(per_cpu);
  }
  const std::vector<netif_rx_counters>& removed_per_cpu() const { return removed_per_cpu_; }
  // The removed counters to keep in a pinned probe's map: without the counts
  // of gone devices in their grace, whose entries are still in the map (the
  // next exporter finds them there and counts them).
  std::vector<netif_rx_counters> removed_to_persist() const;
  // The ifindexes of the own namespace's gone devices in their grace: their
  // slots are read at the next poll though no link view has them.
  std::vector<std::uint32_t> gone_ifindexes() const;

  const PollStepOptions& options() const { return options_; }

 private:
  struct Named;
  // Of each entry read: the poll that first read it (the identity rule's
  // "newest") and the last one that did; updated in place, forgotten when a
  // poll misses it. Besides, what spares the next poll work: the name of a
  // device of the exporter's namespace, and the entry's place in the order
  // of the series.
  struct Seen {
    std::uint64_t first = 0;
    std::uint64_t last = 0;
    bool slot = false;  // read in an array slot (else in the hash) at the last poll
    // The naming round (see naming_round_) in which `label` and `exported`
    // were found for the device's name in the link view; 0: none.
    std::uint64_t named = 0;
    bool exported = false;
    std::string label;
    // Its place among the sorted series, given in the ranking round
    // `ranked` (see rank_round_; 0: none).
    std::uint64_t ranked = 0;
    std::uint32_t rank = 0;
    // With `named`: of the per-CPU class.
    bool per_cpu = false;
    // The spread summary: packets per CPU as last read (the baseline, once
    // `summed`), and the sum of the busiest CPU's deltas since.
    bool summed = false;
    std::uint64_t summed_at = 0;  // the poll that last added to it (one key read twice: once)
    std::vector<std::uint64_t> last_packets;
    std::uint64_t busiest = 0;
  };
  // Where each series of the snapshot comes from, in order.
  struct SeriesOrigin {
    std::uint64_t first_poll = 0;  // the poll that first read its entry
    std::uint32_t seen = 0;        // its state in seen_
  };
  static constexpr std::uint32_t kUnranked = UINT32_MAX;  // no place in the last order

  // `seen`: the entry's state, which keeps its name while `names_kept` (the
  // poll's two link views are the same one).
  Named name_host_device(const DeviceCounters& device, const HostLinks& links, Seen& seen,
                         bool names_kept, Clock::time_point now);
  // A device of the own namespace that is gone (the kernel says so, or it
  // left the link views during the poll): its counts are held as removed
  // ones (see gone_), and its entry is deleted once it has been gone for
  // options_.gone_grace.
  Named forget_gone_host_device(const DeviceCounters& device, Clock::time_point now);
  // The deletion of a gone device's entry whose ifindex a new device took
  // before its grace was over.
  static Named ifindex_taken_again(const netif_rx_device_key& key);
  // Takes back counts add_removed() added (never more than it added).
  void subtract_removed(const std::vector<netif_rx_counters>& per_cpu);
  Named name_other_device(const DeviceCounters& device, const DeviceNames& names,
                          Clock::time_point now);
  // The label of a device shown without its name for one poll: "(ifindex N)".
  static std::string unnamed_label(const netif_rx_device_key& key);
  // The label value of `name` when the device filters export it.
  std::optional<std::string> exported_label(const std::string& name);
  // Records the reading of an entry in this poll (`slot`: in an array slot).
  void mark_seen(Seen& seen, bool slot);
  // Keeps one series per (netns, name): the newest (see the identity rule);
  // leaves them sorted by (name, netns), the snapshot's order.
  struct SortKey;  // a series as the sort sees it
  class SortKeysInLastOrder;
  // `sorted`: the series' sort keys, the first `placed` ones in the last
  // poll's order (see SortKeysInLastOrder).
  void keep_newest_per_name(PollResult& result, const std::vector<SeriesOrigin>& origins,
                            std::vector<SortKey> sorted, std::size_t placed);
  // Gives each series its place in `sorted`, for the next poll.
  void give_places(const std::vector<SortKey>& sorted, const std::vector<SeriesOrigin>& origins);
  // Names that had no counters entry at this poll and the last one: left
  // over when a device's entry was deleted while the probe was creating it.
  // Two polls, because the probe records a new device's name just before
  // its counters, which this poll may have read in between.
  void sweep_orphan_names(const MapContents& contents, PollResult& result);
  void warn_untracked(PollResult& result, Clock::time_point now);
  // Of the per-CPU class: `physical` (a physical link of the own namespace).
  bool per_cpu_class(const std::string& name, bool physical);
  // Adds the busiest CPU's packets since the last reading of `seen` (none at
  // the first: the baseline); returns the sum.
  std::uint64_t add_busiest(Seen& seen, const std::vector<netif_rx_counters>& per_cpu) const;
  // Leaves each device outside the per-CPU class with its sum over CPUs
  // only, its per-CPU vector handed to result.spare_per_cpu: a snapshot then
  // holds devices x possible CPUs counters only for the per-CPU class.
  static void keep_sums_only(PollResult& result);
  // Folds the devices seen last into result.snapshot.folded while the series
  // are more than max_series; counts them in result.snapshot.series.
  void fold_past_max_series(PollResult& result, Clock::time_point now);

  PollStepOptions options_;
  CachedDeviceFilter filter_;
  // per_cpu.include (null: none).
  std::unique_ptr<CachedDeviceFilter> per_cpu_include_;
  std::optional<Clock::time_point> last_fold_warning_;
  StaleTracker stale_;
  UntrackedWarning untracked_warning_;
  // namespaces: all: names recorded without a counters entry at the last poll.
  std::unordered_set<netif_rx_device_key, DeviceKeyHash> orphan_names_;
  // namespaces: all: entries without a name at the last poll.
  std::unordered_set<netif_rx_device_key, DeviceKeyHash> unnamed_;
  // Devices of the own namespace that if_indextoname() found gone: since when,
  // and the counts of theirs already added to the removed counters. The kernel
  // unlists a device before its last packets are through (its unregistration's
  // synchronize_net() comes after): zeroing the slot at once would lose them,
  // or leave them to a device that gets the ifindex next. So the entry stays
  // for gone_grace, its counts in the removed counters (counted = exported +
  // untracked + removed holds meanwhile), and is deleted then.
  struct GoneDevice {
    Clock::time_point since;
    std::vector<netif_rx_counters> removed;
  };
  std::unordered_map<netif_rx_device_key, GoneDevice, DeviceKeyHash> gone_;
  DeviceTable<Seen> seen_;
  // The states of the entries in the order the last poll read them: where
  // the entry read at the same position is looked for first.
  std::vector<DeviceTable<Seen>::Id> read_order_;
  // Keys of seen_ read this poll, and of those the hash's: counted as they
  // are read and removed, so that a poll that read every known entry scans
  // none of them.
  std::size_t seen_this_poll_ = 0;
  std::size_t hash_seen_this_poll_ = 0;
  // The link view the names kept in seen_ come from, held so that no other
  // view gets its address; naming_round_ changes with it and with the
  // device filters. A name found while the poll's two views differ is not
  // kept.
  std::shared_ptr<const LinkView> named_view_;
  std::uint64_t naming_round_ = 1;
  // The places of the series kept in seen_ are those given in this round
  // (see keep_newest_per_name), to this many series; a poll that sorts them
  // as they were keeps the round.
  std::uint64_t rank_round_ = 1;
  std::uint32_t ranked_series_ = 0;
  std::uint64_t polls_ = 0;
  std::vector<netif_rx_counters> removed_per_cpu_;  // see account_removed
};

}  // namespace netif_rx
