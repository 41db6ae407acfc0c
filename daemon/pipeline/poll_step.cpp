#include "pipeline/poll_step.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <optional>
#include <tuple>

#include "counters/per_cpu_sum.h"
#include "devices/label_value.h"
#include "util/duration.h"

namespace netif_rx {
namespace {

// Bytes `from` .. `from` + 7 of `name` as a big-endian word, zero past its
// end: words of two names compare as the names' bytes do.
std::uint64_t name_prefix_word(const std::string& name, std::size_t from) {
  std::uint64_t word = 0;
  for (std::size_t i = from; i < from + 8; ++i) {
    word <<= 8;
    if (i < name.size()) word |= static_cast<unsigned char>(name[i]);
  }
  return word;
}

std::unique_ptr<CachedDeviceFilter> include_filter(const PerCpuConfig& per_cpu) {
  if (per_cpu.include.empty()) return nullptr;
  return std::make_unique<CachedDeviceFilter>(
      DeviceFilter(DeviceFilterConfig{per_cpu.include, {}}));
}

bool counted_on(const netif_rx_counters& counters) {
  return counters.skbs != 0 || counters.merged_packets != 0 || counters.bytes != 0;
}

}  // namespace

std::size_t device_series(const DeviceSeries& device) {
  if (!device.per_cpu_detail) return 4;
  std::size_t cpus = 0;
  for (const auto& counters : device.per_cpu) cpus += counted_on(counters) ? 1 : 0;
  return 3 * cpus + 1;
}

// A device's name for this poll, or why it has none.
struct PollStep::Named {
  std::optional<std::string> label;     // exported as; nullopt: left out of this snapshot
  bool per_cpu = false;                 // of the per-CPU class
  std::optional<MapDeletion> deletion;  // its entries are to be removed
  std::optional<PollError> error;
};

// Sorted: compact keys, each with its series' position, so that the sort
// compares integers in one contiguous array and reads a name only when the
// first 16 bytes of two names are equal and one is longer.
struct PollStep::SortKey {
  std::uint64_t name_high = 0;  // the name's bytes 0..7, big-endian, zero-padded
  std::uint64_t name_low = 0;   // bytes 8..15
  std::uint32_t netns_inum = 0;
  std::uint32_t index = 0;  // in the snapshot's devices
};

// The sort keys of the series, made as the poll names them (the series at
// hand): each at the place the last poll's order gave its series, the others
// after. A poll that reads the same series as the last one has them in order.
class PollStep::SortKeysInLastOrder {
 public:
  // `places`: how many series the last order had.
  explicit SortKeysInLastOrder(std::size_t places)
      : keys_(places, SortKey{0, 0, 0, kUnranked}), places_(places) {}

  // The series at `index` in the snapshot; `rank`: its place in the last
  // order (kUnranked: none).
  void add(const DeviceSeries& series, std::uint32_t index, std::uint32_t rank) {
    const SortKey key{name_prefix_word(series.name, 0), name_prefix_word(series.name, 8),
                      series.key.netns_inum, index};
    if (rank < places_ && keys_[rank].index == kUnranked) {
      keys_[rank] = key;
      ++placed_;
    } else {
      unplaced_.push_back(key);
    }
  }

  // The keys: first the `placed` ones, in the last order, then the others.
  std::vector<SortKey> take(std::size_t& placed) {
    if (placed_ != places_) {
      std::erase_if(keys_, [](const SortKey& key) { return key.index == kUnranked; });
    }
    placed = placed_;
    keys_.insert(keys_.end(), unplaced_.begin(), unplaced_.end());
    return std::move(keys_);
  }

 private:
  std::vector<SortKey> keys_;  // by place in the last order
  std::size_t places_ = 0;
  std::size_t placed_ = 0;
  std::vector<SortKey> unplaced_;
};

PollStep::PollStep(PollStepOptions options)
    : options_(std::move(options)),
      filter_(DeviceFilter(options_.devices)),
      per_cpu_include_(include_filter(options_.per_cpu)),
      stale_(options_.stale_after) {}

void PollStep::reconfigure(DeviceFilterConfig devices, Milliseconds stale_after,
                           PerCpuConfig per_cpu, std::uint32_t max_series) {
  options_.per_cpu = std::move(per_cpu);
  options_.max_series = max_series;
  per_cpu_include_ = include_filter(options_.per_cpu);
  reconfigure(std::move(devices), stale_after);
}

void PollStep::reconfigure(DeviceFilterConfig devices, Milliseconds stale_after) {
  options_.devices = std::move(devices);
  options_.stale_after = stale_after;
  filter_ = CachedDeviceFilter(DeviceFilter(options_.devices));
  ++naming_round_;  // the names kept were filtered by the old ones
  stale_.set_limit(stale_after);
}

PollResult PollStep::run(MapContents contents, const HostLinks& links, Clock::time_point now) {
  ++polls_;
  PollResult result;
  result.snapshot.untracked_per_cpu = std::move(contents.untracked_per_cpu);
  result.snapshot.counted_per_cpu = std::move(contents.counted_per_cpu);
  result.snapshot.gso_fallbacks = std::move(contents.gso_fallbacks);
  // The merge of the two layouts: the hash's entries, then the array's.
  const std::size_t hash_entries = contents.device_counters.size();
  contents.device_counters.reserve(hash_entries + contents.host_slots.size());
  for (auto& device : contents.host_slots) contents.device_counters.push_back(std::move(device));
  contents.host_slots.clear();
  seen_this_poll_ = 0;
  hash_seen_this_poll_ = 0;
  // Names kept from earlier polls hold while both views are the one they
  // were found in (a view does not change once published).
  const bool names_kept = links.before == links.after;
  if (names_kept && links.before != named_view_) {
    named_view_ = links.before;
    ++naming_round_;
  }
  result.snapshot.devices.reserve(contents.device_counters.size());
  std::vector<SeriesOrigin> origins;  // of each series, in order
  origins.reserve(contents.device_counters.size());
  SortKeysInLastOrder sort_keys(ranked_series_);
  std::vector<DeviceTable<Seen>::Id> read_order(contents.device_counters.size());
  Seen first_read;  // of a key this poll reads first
  first_read.first = polls_;
  for (std::size_t i = 0; i < contents.device_counters.size(); ++i) {
    DeviceCounters& device = contents.device_counters[i];
    // The map hands out its entries in the same order while they stay.
    const auto guess = i < read_order_.size() ? read_order_[i] : DeviceTable<Seen>::kNone;
    const auto id = seen_.find_or_add(device.key, first_read, guess).first;
    read_order[i] = id;
    Named named = device.key.netns_inum == options_.host_netns_inum
                      ? name_host_device(device, links, seen_[id], names_kept, now)
                      : name_other_device(device, contents.device_names, now);
    if (named.error) result.errors.push_back(std::move(*named.error));
    if (named.deletion) {
      result.deletions.push_back(std::move(*named.deletion));
      account_removed(device.key, device.per_cpu);  // a slot's counts too: it is zeroed
      continue;
    }
    Seen& seen = seen_[id];
    mark_seen(seen, i >= hash_entries);
    if (!named.label) continue;
    // Two names may give one label value (bytes that are not UTF-8).
    const std::uint64_t busiest = add_busiest(seen, device.per_cpu);
    result.snapshot.devices.push_back(
        {device.key, std::move(*named.label), std::move(device.per_cpu), named.per_cpu, busiest});
    sort_keys.add(result.snapshot.devices.back(), static_cast<std::uint32_t>(origins.size()),
                  seen.ranked == rank_round_ ? seen.rank : kUnranked);
    origins.push_back({seen.first, id});
  }
  // Entries this poll did not read are forgotten: one that comes back is new.
  // (Every entry was read when as many were read this poll as are kept.)
  if (seen_this_poll_ != seen_.size()) {
    seen_.remove_if([this](const Seen& seen) { return seen.last != polls_; });
  }
  // A gone device whose entry this poll did not read left the map another
  // way: its counts are removed ones, nothing is left to wait for.
  std::erase_if(gone_, [this](const auto& gone) {
    return seen_.find(gone.first) == DeviceTable<Seen>::kNone;
  });
  read_order_ = std::move(read_order);
  stale_.end_poll();
  filter_.forget_unused();
  if (per_cpu_include_) per_cpu_include_->forget_unused();
  std::size_t placed = 0;
  std::vector<SortKey> sorted = sort_keys.take(placed);
  keep_newest_per_name(result, origins, std::move(sorted), placed);
  // The series are now in the snapshot's order, by (name, netns): one per pair.
  if (options_.namespaces == NamespaceMode::all) sweep_orphan_names(contents, result);
  warn_untracked(result, now);
  result.snapshot.removed_per_cpu = removed_per_cpu_;
  keep_sums_only(result);
  fold_past_max_series(result, now);
  result.device_entries = hash_seen_this_poll_;
  return result;
}

void PollStep::add_removed(const std::vector<netif_rx_counters>& per_cpu) {
  add_per_cpu(removed_per_cpu_, per_cpu);
}

std::vector<netif_rx_counters> PollStep::removed_to_persist() const {
  std::vector<netif_rx_counters> removed = removed_per_cpu_;
  for (const auto& [key, gone] : gone_) subtract_per_cpu(removed, gone.removed);
  return removed;
}

std::vector<std::uint32_t> PollStep::gone_ifindexes() const {
  std::vector<std::uint32_t> ifindexes;
  ifindexes.reserve(gone_.size());
  for (const auto& [key, gone] : gone_) ifindexes.push_back(key.ifindex);
  return ifindexes;
}

void PollStep::subtract_removed(const std::vector<netif_rx_counters>& per_cpu) {
  subtract_per_cpu(removed_per_cpu_, per_cpu);
}

void PollStep::account_removed(const netif_rx_device_key& key,
                               const std::vector<netif_rx_counters>& per_cpu) {
  // A gone device's counts added already are replaced by its last ones: the
  // removed counters grow by what it counted since.
  if (const auto gone = gone_.find(key); gone != gone_.end()) {
    subtract_removed(gone->second.removed);
    gone_.erase(gone);
  }
  add_removed(per_cpu);
  stale_.forget(key);
  unnamed_.erase(key);
  const auto id = seen_.find(key);
  if (id == DeviceTable<Seen>::kNone) return;
  if (const Seen& seen = seen_[id]; seen.last == polls_) {
    --seen_this_poll_;
    if (!seen.slot) --hash_seen_this_poll_;
  }
  seen_.remove(key);
}

void PollStep::mark_seen(Seen& seen, bool slot) {
  if (seen.last != polls_) {  // the first reading of this key in this poll
    seen.last = polls_;
    seen.slot = slot;
    ++seen_this_poll_;
    if (!slot) ++hash_seen_this_poll_;
  } else if (slot && !seen.slot) {  // read in the hash and in a slot: counted as a slot
    seen.slot = true;
    --hash_seen_this_poll_;
  }
}

void PollStep::give_places(const std::vector<SortKey>& sorted,
                           const std::vector<SeriesOrigin>& origins) {
  ++rank_round_;
  for (std::uint32_t rank = 0; rank < sorted.size(); ++rank) {
    Seen& seen = seen_[origins[sorted[rank].index].seen];
    seen.ranked = rank_round_;
    seen.rank = rank;
  }
  ranked_series_ = static_cast<std::uint32_t>(sorted.size());
}

void PollStep::keep_newest_per_name(PollResult& result, const std::vector<SeriesOrigin>& origins,
                                    std::vector<SortKey> sorted, std::size_t placed) {
  std::vector<DeviceSeries>& devices = result.snapshot.devices;
  const auto newest_first = [&devices, &origins](const SortKey& a, const SortKey& b) {
    // Grouped by (name, netns): the order of the snapshot, once one series
    // is left per group. Within a group, newest first (first_poll: the
    // poll that first read each series' key); of the same poll, the higher
    // ifindex, then (a namespace and its successor under the same inode
    // number, both first read by this poll) the higher salt, an arbitrary
    // but stable choice. Zero-padded prefixes order as the names do; equal
    // ones are decided by the whole names.
    if (a.name_high != b.name_high) return a.name_high < b.name_high;
    if (a.name_low != b.name_low) return a.name_low < b.name_low;
    const DeviceSeries& x = devices[a.index];
    const DeviceSeries& y = devices[b.index];
    if (x.name.size() > 16 || y.name.size() > 16 || x.name.size() != y.name.size()) {
      if (const int order = x.name.compare(y.name); order != 0) return order < 0;
    }
    return std::tie(a.netns_inum, origins[b.index].first_poll, y.key.ifindex, y.key.netns_salt) <
           std::tie(b.netns_inum, origins[a.index].first_poll, x.key.ifindex, x.key.netns_salt);
  };
  // In the last poll's order first: most polls read the same series, which
  // one pass then finds still in order; the series new since (or whose
  // place was lost) are sorted alone and merged in.
  const auto placed_end = sorted.begin() + static_cast<std::ptrdiff_t>(placed);
  const bool still_in_order = std::is_sorted(sorted.begin(), placed_end, newest_first);
  if (still_in_order) {
    std::sort(placed_end, sorted.end(), newest_first);
    std::inplace_merge(sorted.begin(), placed_end, sorted.end(), newest_first);
  } else {
    std::sort(sorted.begin(), sorted.end(), newest_first);
  }
  // Every series in the place the last poll gave it: the places hold.
  if (!still_in_order || placed != sorted.size() || placed != ranked_series_) {
    give_places(sorted, origins);
  }
  std::vector<DeviceSeries> kept;
  kept.reserve(devices.size());
  std::vector<DeviceSeries> unplaced;  // renamed: sorted in at the end
  for (const SortKey& key : sorted) {
    DeviceSeries& device = devices[key.index];
    if (kept.empty() || kept.back().key.netns_inum != device.key.netns_inum ||
        kept.back().name != device.name) {
      kept.push_back(std::move(device));
      continue;
    }
    // An older device under a name a newer one holds. In the exporter's
    // namespace the kernel's names are unique (a rename caught half-way
    // between the link view and a name asked of the kernel): not removed,
    // and not left out either (its counts would be missing from the poll):
    // shown by its ifindex for this poll.
    if (device.key.netns_inum == options_.host_netns_inum) {
      device.name = unnamed_label(device.key);
      unplaced.push_back(std::move(device));
      continue;
    }
    result.deletions.push_back(
        {device.key, MapDeletion::Scope::device, device.name + " is a newer device's name"});
    account_removed(device.key, device.per_cpu);
  }
  if (!unplaced.empty()) {
    std::move(unplaced.begin(), unplaced.end(), std::back_inserter(kept));
    std::sort(kept.begin(), kept.end(), [](const DeviceSeries& a, const DeviceSeries& b) {
      return std::tie(a.name, a.key.netns_inum) < std::tie(b.name, b.key.netns_inum);
    });
  }
  devices = std::move(kept);
}

std::string PollStep::unnamed_label(const netif_rx_device_key& key) {
  // Never a device's name: the kernel refuses names with spaces.
  return "(ifindex " + std::to_string(key.ifindex) + ")";
}

std::optional<std::string> PollStep::exported_label(const std::string& name) {
  if (!filter_.exported(name)) return std::nullopt;
  return to_label_value(name);
}

PollStep::Named PollStep::name_host_device(const DeviceCounters& device, const HostLinks& links,
                                           Seen& seen, bool names_kept, Clock::time_point now) {
  if (names_kept && seen.named == naming_round_) {
    if (!seen.exported) return {};
    return {seen.label, seen.per_cpu, {}, {}};
  }
  const auto ifindex = device.key.ifindex;
  HostName resolved = resolve_host_name(ifindex, *links.before, *links.after);
  // Gone from the namespace while the poll read the map (removed, moved out,
  // or its ifindex taken by a new device): its counts are the gone device's,
  // held as removed ones until its entry is deleted, so that no poll is short.
  if (resolved.kind == HostName::Kind::gone) return forget_gone_host_device(device, now);
  if (resolved.kind == HostName::Kind::show) {
    std::optional<std::string> label = exported_label(resolved.name);
    if (names_kept) {
      seen.named = naming_round_;
      seen.exported = label.has_value();
      seen.label = label.value_or(std::string());
    }
    const bool per_cpu = label && per_cpu_class(resolved.name, resolved.physical);
    if (names_kept) seen.per_cpu = per_cpu;
    if (gone_.count(device.key) != 0) return ifindex_taken_again(device.key);
    return {std::move(label), per_cpu, {}, {}};
  }
  // Not in the views (an event not read yet, or lost): ask the kernel.
  KernelLinkName kernel = links.ask_kernel ? links.ask_kernel(ifindex) : KernelLinkName{};
  switch (kernel.kind) {
    case KernelLinkName::Kind::found:
      if (gone_.count(device.key) != 0) return ifindex_taken_again(device.key);
      return {exported_label(kernel.name), per_cpu_class(kernel.name, false), {}, {}};
    case KernelLinkName::Kind::gone:
      return forget_gone_host_device(device, now);
    case KernelLinkName::Kind::failed:
      break;
  }
  return {{},
          false,
          {},
          PollError{"name_resolution", "naming ifindex " + std::to_string(ifindex) +
                                           " failed: " + std::strerror(kernel.error)}};
}

PollStep::Named PollStep::forget_gone_host_device(const DeviceCounters& device,
                                                  Clock::time_point now) {
  GoneDevice& gone = gone_.try_emplace(device.key, GoneDevice{now, {}}).first->second;
  // Its counts so far are removed ones already; its entry stays while it may
  // still be receiving its last packets, read again at a later poll.
  subtract_removed(gone.removed);
  add_removed(device.per_cpu);
  gone.removed = device.per_cpu;
  if (now - gone.since < options_.gone_grace) return {};
  // Deleted since it was counted: forget it, so that a device that later
  // gets the same ifindex starts from zero.
  return {{}, false, MapDeletion{device.key, MapDeletion::Scope::device, "the device is gone"}, {}};
}

PollStep::Named PollStep::ifindex_taken_again(const netif_rx_device_key& key) {
  // Its slot holds the gone device's counts and the new one's first: all go
  // to the removed counters with the deletion, and the new device starts
  // from zero at the next poll (a counter never goes down).
  return {
      {},
      false,
      MapDeletion{key, MapDeletion::Scope::device, "its ifindex was taken again while it was gone"},
      {}};
}

PollStep::Named PollStep::name_other_device(const DeviceCounters& device, const DeviceNames& names,
                                            Clock::time_point now) {
  std::uint64_t skbs = 0;  // any event moves it
  for (const auto& cpu : device.per_cpu) skbs += cpu.skbs;
  if (stale_.stale(device.key, skbs, now)) {
    return {{},
            false,
            MapDeletion{device.key, MapDeletion::Scope::device,
                        "no packets for " + format_duration(options_.stale_after)},
            {}};
  }
  const auto found = names.find(device.key);
  if (found != names.end()) {
    unnamed_.erase(device.key);
    return {exported_label(found->second), per_cpu_class(found->second, false), {}, {}};
  }
  // The probe records the name before creating the entry: a name missing at
  // two polls was deleted while the entry was re-created. Removing the entry
  // makes the device's next packet record its name again. At the first, it is
  // shown by its ifindex: its counts are not left out of the poll.
  if (unnamed_.insert(device.key).second) {
    return {exported_label(unnamed_label(device.key)), false, {}, {}};
  }
  return {
      {}, false, MapDeletion{device.key, MapDeletion::Scope::device, "no name for two polls"}, {}};
}

void PollStep::sweep_orphan_names(const MapContents& contents, PollResult& result) {
  std::unordered_set<netif_rx_device_key, DeviceKeyHash> counted;
  counted.reserve(contents.device_counters.size());
  for (const auto& device : contents.device_counters) counted.insert(device.key);
  std::unordered_set<netif_rx_device_key, DeviceKeyHash> orphans;
  for (const auto& [key, name] : contents.device_names) {
    if (counted.count(key)) continue;
    if (orphan_names_.count(key)) {
      result.deletions.push_back(
          {key, MapDeletion::Scope::name_only, "a name without counters for two polls"});
    } else {
      orphans.insert(key);
    }
  }
  orphan_names_ = std::move(orphans);
}

bool PollStep::per_cpu_class(const std::string& name, bool physical) {
  switch (options_.per_cpu.devices) {
    case PerCpuDevices::all:
      return true;
    case PerCpuDevices::physical:
      if (physical) return true;
      break;
    case PerCpuDevices::none:
      break;
  }
  return per_cpu_include_ && per_cpu_include_->exported(name);
}

std::uint64_t PollStep::add_busiest(Seen& seen,
                                    const std::vector<netif_rx_counters>& per_cpu) const {
  // A key read twice in one poll (in the hash and in a slot): its first
  // reading counts, the other would be a delta between two parts.
  if (seen.summed && seen.summed_at == polls_) return seen.busiest;
  seen.summed_at = polls_;
  if (seen.last_packets.size() < per_cpu.size()) seen.last_packets.resize(per_cpu.size());
  std::uint64_t busiest = 0;
  for (std::size_t cpu = 0; cpu < per_cpu.size(); ++cpu) {
    const std::uint64_t packets = netif_rx_packets(&per_cpu[cpu]);
    std::uint64_t& last = seen.last_packets[cpu];
    if (packets > last) busiest = std::max(busiest, packets - last);
    last = packets;  // a count that went back (never for one key) is a new baseline
  }
  // The first reading is the baseline: the maps may hold counts from before
  // the exporter (an adopted probe) or from before the device was exported.
  if (seen.summed) seen.busiest += busiest;
  seen.summed = true;
  return seen.busiest;
}

void PollStep::keep_sums_only(PollResult& result) {
  for (DeviceSeries& device : result.snapshot.devices) {
    if (device.per_cpu_detail) continue;
    const netif_rx_counters sum = sum_over_cpus(device.per_cpu);
    result.spare_per_cpu.push_back(std::move(device.per_cpu));
    device.per_cpu.assign(1, sum);
  }
}

void PollStep::fold_past_max_series(PollResult& result, Clock::time_point now) {
  Snapshot& snapshot = result.snapshot;
  // The totals: untracked, removed, counted and each fallback reason, by CPU
  // with per_cpu.devices: all.
  const std::size_t totals_lines = options_.per_cpu.devices == PerCpuDevices::all
                                       ? std::max<std::size_t>(1, snapshot.counted_per_cpu.size())
                                       : 1;
  const std::size_t fixed = totals_lines * (3 + snapshot.gso_fallbacks.size());
  const bool info = options_.namespaces == NamespaceMode::all;
  // The series of every device, and one netif_rx_netns_info per namespace.
  const auto count = [&](const std::vector<DeviceSeries>& devices) {
    std::size_t series = 0;
    std::unordered_set<std::uint32_t> namespaces;
    for (const DeviceSeries& device : devices) {
      series += device_series(device);
      if (info) namespaces.insert(device.key.netns_inum);
    }
    return series + namespaces.size();
  };
  const std::size_t all = fixed + count(snapshot.devices);
  if (all <= options_.max_series) {
    snapshot.series = all;
    return;
  }
  // The devices first read earliest keep their series; of one poll, those
  // first in the snapshot's order. The folded series take 4.
  std::vector<std::pair<std::uint64_t, std::size_t>> by_age;
  by_age.reserve(snapshot.devices.size());
  for (std::size_t i = 0; i < snapshot.devices.size(); ++i) {
    const auto id = seen_.find(snapshot.devices[i].key);
    by_age.emplace_back(id == DeviceTable<Seen>::kNone ? polls_ : seen_[id].first, i);
  }
  std::sort(by_age.begin(), by_age.end());
  const std::size_t budget =
      options_.max_series > fixed + 4 ? options_.max_series - fixed - 4 : std::size_t{0};
  std::vector<bool> keep(snapshot.devices.size(), false);
  std::unordered_set<std::uint32_t> namespaces;
  std::size_t used = 0;
  for (const auto& [first, index] : by_age) {
    const DeviceSeries& device = snapshot.devices[index];
    const std::size_t cost =
        device_series(device) + (info && !namespaces.count(device.key.netns_inum) ? 1 : 0);
    if (used + cost > budget) break;  // this one and every later one fold
    used += cost;
    keep[index] = true;
    if (info) namespaces.insert(device.key.netns_inum);
  }
  std::vector<DeviceSeries> kept;
  kept.reserve(snapshot.devices.size());
  FoldedDevices& folded = snapshot.folded;
  for (std::size_t i = 0; i < snapshot.devices.size(); ++i) {
    DeviceSeries& device = snapshot.devices[i];
    if (keep[i]) {
      kept.push_back(std::move(device));
      continue;
    }
    ++folded.devices;
    add_per_cpu(folded.per_cpu, device.per_cpu);
    folded.busiest_packets += device.busiest_packets;
  }
  snapshot.devices = std::move(kept);
  snapshot.series = fixed + used + 4;
  if (!last_fold_warning_ || now - *last_fold_warning_ >= std::chrono::minutes(1)) {
    last_fold_warning_ = now;
    result.warnings.push_back(
        std::to_string(folded.devices) +
        " devices are folded into device=\"(folded devices)\": " + std::to_string(all) +
        " series would pass max_series=" + std::to_string(options_.max_series) +
        "; raise max_series (and the scrape's sample_limit) or narrow per_cpu and devices");
  }
}

void PollStep::warn_untracked(PollResult& result, Clock::time_point now) {
  std::uint64_t total = 0;
  for (const auto& cpu : result.snapshot.untracked_per_cpu) total += netif_rx_packets(&cpu);
  if (const auto pending = untracked_warning_.update(total, now)) {
    result.warnings.push_back(
        "the device map is full (max_devices=" + std::to_string(options_.max_devices) +
        "): " + std::to_string(*pending) +
        " packets since the last warning were counted in netif_rx_untracked_packets_total "
        "without a device; raise max_devices");
  }
}

}  // namespace netif_rx
