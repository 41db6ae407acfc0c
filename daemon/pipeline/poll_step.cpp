#include "pipeline/poll_step.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <tuple>

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

}  // namespace

// A device's name for this poll, or why it has none.
struct PollStep::Named {
  std::optional<std::string> name;      // nullopt: left out of this snapshot
  std::optional<MapDeletion> deletion;  // its entries are to be removed
  std::optional<PollError> error;
};

PollStep::PollStep(PollStepOptions options)
    : options_(std::move(options)),
      filter_(DeviceFilter(options_.devices)),
      stale_(options_.stale_after) {}

void PollStep::reconfigure(DeviceFilterConfig devices, Milliseconds stale_after) {
  options_.devices = std::move(devices);
  options_.stale_after = stale_after;
  filter_ = CachedDeviceFilter(DeviceFilter(options_.devices));
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
  result.snapshot.devices.reserve(contents.device_counters.size());
  std::vector<std::uint64_t> first_polls;  // of each series, in order
  first_polls.reserve(contents.device_counters.size());
  for (std::size_t i = 0; i < contents.device_counters.size(); ++i) {
    DeviceCounters& device = contents.device_counters[i];
    Named named = device.key.netns_inum == options_.host_netns_inum
                      ? name_host_device(device, links)
                      : name_other_device(device, contents.device_names, now);
    if (named.error) result.errors.push_back(std::move(*named.error));
    if (named.deletion) {
      result.deletions.push_back(std::move(*named.deletion));
      account_removed(device.key, device.per_cpu);  // a slot's counts too: it is zeroed
      continue;
    }
    const Seen& seen = mark_seen(device.key, i >= hash_entries);
    if (!named.name || !filter_.exported(*named.name)) continue;
    // Two names may give one label value (bytes that are not UTF-8).
    result.snapshot.devices.push_back(
        {device.key, to_label_value(*named.name), std::move(device.per_cpu)});
    first_polls.push_back(seen.first);
  }
  // Entries this poll did not read are forgotten: one that comes back is new.
  // (Every entry was read when as many were read this poll as are kept.)
  if (seen_this_poll_ != first_seen_.size()) {
    std::erase_if(first_seen_, [this](const auto& entry) { return entry.second.last != polls_; });
  }
  stale_.end_poll();
  filter_.forget_unused();
  keep_newest_per_name(result, first_polls);
  // The series are now in the snapshot's order, by (name, netns): one per pair.
  if (options_.namespaces == NamespaceMode::all) sweep_orphan_names(contents, result);
  warn_untracked(result, now);
  result.snapshot.removed_per_cpu = removed_per_cpu_;
  result.device_entries = hash_seen_this_poll_;
  return result;
}

void PollStep::add_removed(const std::vector<netif_rx_counters>& per_cpu) {
  if (removed_per_cpu_.size() < per_cpu.size()) removed_per_cpu_.resize(per_cpu.size());
  for (std::size_t cpu = 0; cpu < per_cpu.size(); ++cpu) {
    removed_per_cpu_[cpu].skbs += per_cpu[cpu].skbs;
    removed_per_cpu_[cpu].merged_packets += per_cpu[cpu].merged_packets;
    removed_per_cpu_[cpu].bytes += per_cpu[cpu].bytes;
  }
}

void PollStep::account_removed(const netif_rx_device_key& key,
                               const std::vector<netif_rx_counters>& per_cpu) {
  add_removed(per_cpu);
  stale_.forget(key);
  unnamed_.erase(key);
  const auto seen = first_seen_.find(key);
  if (seen == first_seen_.end()) return;
  if (seen->second.last == polls_) {
    --seen_this_poll_;
    if (!seen->second.slot) --hash_seen_this_poll_;
  }
  first_seen_.erase(seen);
}

PollStep::Seen& PollStep::mark_seen(const netif_rx_device_key& key, bool slot) {
  Seen& seen = first_seen_.try_emplace(key, Seen{polls_, 0, slot}).first->second;
  if (seen.last != polls_) {  // the first reading of this key in this poll
    seen.last = polls_;
    seen.slot = slot;
    ++seen_this_poll_;
    if (!slot) ++hash_seen_this_poll_;
  } else if (slot && !seen.slot) {  // read in the hash and in a slot: counted as a slot
    seen.slot = true;
    --hash_seen_this_poll_;
  }
  return seen;
}

void PollStep::keep_newest_per_name(PollResult& result,
                                    const std::vector<std::uint64_t>& first_polls) {
  std::vector<DeviceSeries>& devices = result.snapshot.devices;
  // Sorted: compact keys, each with its series' position, so that the sort
  // compares integers in one contiguous array and reads a name only when
  // the first 16 bytes of two names are equal and one is longer.
  struct SortKey {
    std::uint64_t name_high = 0;  // the name's bytes 0..7, big-endian, zero-padded
    std::uint64_t name_low = 0;   // bytes 8..15
    std::uint32_t netns_inum = 0;
    std::uint32_t index = 0;  // in devices
  };
  std::vector<SortKey> keys(devices.size());
  for (std::uint32_t i = 0; i < keys.size(); ++i) {
    const std::string& name = devices[i].name;
    keys[i] = {name_prefix_word(name, 0), name_prefix_word(name, 8), devices[i].key.netns_inum, i};
  }
  const auto newest_first = [&devices, &first_polls](const SortKey& a, const SortKey& b) {
    // Grouped by (name, netns): the order of the snapshot, once one series
    // is left per group. Within a group, newest first (first_polls: the
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
    return std::tie(a.netns_inum, first_polls[b.index], y.key.ifindex, y.key.netns_salt) <
           std::tie(b.netns_inum, first_polls[a.index], x.key.ifindex, x.key.netns_salt);
  };
  std::sort(keys.begin(), keys.end(), newest_first);
  std::vector<DeviceSeries> kept;
  kept.reserve(devices.size());
  for (const SortKey& sorted : keys) {
    DeviceSeries& device = devices[sorted.index];
    if (kept.empty() || kept.back().key.netns_inum != device.key.netns_inum ||
        kept.back().name != device.name) {
      kept.push_back(std::move(device));
      continue;
    }
    // An older device under a name a newer one holds. In the exporter's
    // namespace the kernel's names are unique (a rename caught half-way, or
    // two names with one label value): left out, not removed.
    if (device.key.netns_inum == options_.host_netns_inum) continue;
    result.deletions.push_back(
        {device.key, MapDeletion::Scope::device, device.name + " is a newer device's name"});
    account_removed(device.key, device.per_cpu);
  }
  devices = std::move(kept);
}

PollStep::Named PollStep::name_host_device(const DeviceCounters& device, const HostLinks& links) {
  const auto ifindex = device.key.ifindex;
  HostName resolved = resolve_host_name(ifindex, *links.before, *links.after);
  if (resolved.kind == HostName::Kind::skip) return {};  // next poll shows the right one
  if (resolved.kind == HostName::Kind::show) return {std::move(resolved.name), {}, {}};
  // Not in the views (an event not read yet, or lost): ask the kernel.
  KernelLinkName kernel = links.ask_kernel ? links.ask_kernel(ifindex) : KernelLinkName{};
  switch (kernel.kind) {
    case KernelLinkName::Kind::found:
      return {std::move(kernel.name), {}, {}};
    case KernelLinkName::Kind::gone:
      // Deleted since it was counted: forget it, so that a device that later
      // gets the same ifindex starts from zero.
      return {{}, MapDeletion{device.key, MapDeletion::Scope::device, "the device is gone"}, {}};
    case KernelLinkName::Kind::failed:
      break;
  }
  return {{},
          {},
          PollError{"name_resolution", "naming ifindex " + std::to_string(ifindex) +
                                           " failed: " + std::strerror(kernel.error)}};
}

PollStep::Named PollStep::name_other_device(const DeviceCounters& device, const DeviceNames& names,
                                            Clock::time_point now) {
  std::uint64_t skbs = 0;  // any event moves it
  for (const auto& cpu : device.per_cpu) skbs += cpu.skbs;
  if (stale_.stale(device.key, skbs, now)) {
    return {{},
            MapDeletion{device.key, MapDeletion::Scope::device,
                        "no packets for " + format_duration(options_.stale_after)},
            {}};
  }
  const auto found = names.find(device.key);
  if (found != names.end()) {
    unnamed_.erase(device.key);
    return {found->second, {}, {}};
  }
  // The probe records the name before creating the entry: a name missing at
  // two polls was deleted while the entry was re-created. Removing the entry
  // makes the device's next packet record its name again.
  if (unnamed_.insert(device.key).second) return {};
  return {{}, MapDeletion{device.key, MapDeletion::Scope::device, "no name for two polls"}, {}};
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
