#include "pipeline/poller.h"

#include <net/if.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "devices/label_value.h"
#include "pipeline/cpu_list.h"

namespace netif_rx {
namespace {

double unix_seconds_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

Poller::Poller(MapReader reader, PollerOptions options, LinkViewSource host_links,
               SnapshotStore& store, SelfMetrics& metrics, std::shared_ptr<RemovalQueue> removals)
    : reader_(std::move(reader)),
      options_(options),
      host_links_(std::move(host_links)),
      filter_(DeviceFilter(options_.devices)),
      stale_(options_.stale_after),
      removals_(removals ? std::move(removals) : std::make_shared<RemovalQueue>()),
      store_(store),
      metrics_(metrics) {
  removals_->set_listener([this] {
    {
      std::lock_guard lock(mutex_);
      removal_pending_ = true;
    }
    wake_.notify_all();
  });
}

Poller::~Poller() {
  removals_->set_listener(nullptr);
  stop();
}

void Poller::apply_removals() {
  for (const std::uint32_t ifindex : removals_->take()) {
    const netif_rx_device_key key{options_.host_netns_inum, ifindex};
    auto counters = reader_.read_device(key);
    for (const auto& error : counters.errors) {
      spdlog::warn("poll: {}", error.describe());
      metrics_.count_poll_error("map_read");
    }
    if (counters.ok() && !counters.value.empty()) remove(key, counters.value);
  }
}

bool Poller::poll_once() {
  const auto started = std::chrono::steady_clock::now();
  std::optional<PendingDevices> reloaded;
  {
    std::lock_guard lock(mutex_);
    reloaded.swap(pending_devices_);
  }
  if (reloaded) {
    options_.devices = reloaded->devices;
    options_.stale_after = reloaded->stale_after;
    filter_ = CachedDeviceFilter(DeviceFilter(options_.devices));
    stale_.set_limit(options_.stale_after);
  }
  bool ok = true;
  apply_removals();
  PollRead read;
  if (!read_maps(read, ok)) return false;
  ++polls_;

  auto snapshot = std::make_shared<Snapshot>();
  snapshot->cpus = present_cpus();
  snapshot->devices = name_devices(read, started, ok);
  std::sort(snapshot->devices.begin(), snapshot->devices.end(),
            [](const DeviceSeries& a, const DeviceSeries& b) {
              return std::tie(a.name, a.key.netns_inum, a.key.ifindex) <
                     std::tie(b.name, b.key.netns_inum, b.key.ifindex);
            });
  warn_untracked(read.untracked, started);
  snapshot->untracked_per_cpu = std::move(read.untracked);
  snapshot->counted_per_cpu = std::move(read.counted);
  snapshot->removed_per_cpu = removed_per_cpu_;
  // The entries left in the map: those read, less those removed.
  if (bpf_stats_) snapshot->bpf = bpf_stats_(first_seen_.size());
  store_.publish(std::move(snapshot));

  const auto finished = std::chrono::steady_clock::now();
  metrics_.observe_poll(std::chrono::duration<double>(finished - started).count());
  if (ok) {
    metrics_.set_last_poll_timestamp(unix_seconds_now());
    {
      std::lock_guard lock(mutex_);
      last_success_ = finished;
    }
    if (after_success_) after_success_();
  }
  return ok;
}

bool Poller::read_maps(PollRead& read, bool& ok) {
  const auto report = [&](const std::vector<MapReadError>& errors) {
    for (const auto& error : errors) {
      spdlog::warn("poll: {}", error.describe());
      metrics_.count_poll_error("map_read");
      ok = false;
    }
  };
  // The links before and after the map read: a device is shown only if the
  // same device held its ifindex in both (see resolve_host_name), so a count
  // read just before a deletion never appears under a successor's name.
  read.links_before = host_links_();
  // The probe's total first: every packet in it is in what follows.
  auto counted = reader_.read_counted();
  report(counted.errors);
  auto counters = reader_.read_device_counters();
  report(counters.errors);
  auto untracked = reader_.read_untracked();
  report(untracked.errors);
  if (!counted.ok() || !counters.ok() || !untracked.ok()) return false;
  read.links_after = host_links_();
  read.counted = std::move(counted.value);
  read.devices = std::move(counters.value);
  read.untracked = std::move(untracked.value);
  if (options_.namespaces == NamespaceMode::all) {
    auto names = reader_.read_device_names();
    report(names.errors);
    read.names = std::move(names.value);
  }
  return true;
}

std::vector<DeviceSeries> Poller::name_devices(PollRead& read,
                                               std::chrono::steady_clock::time_point now,
                                               bool& ok) {
  std::vector<DeviceSeries> series;
  series.reserve(read.devices.size());
  std::unordered_map<netif_rx_device_key, std::uint64_t, DeviceKeyHash> seen;
  seen.reserve(read.devices.size());
  for (auto& device : read.devices) {
    const auto first = first_seen_.find(device.key);
    seen.emplace(device.key, first == first_seen_.end() ? polls_ : first->second);
    const Naming naming = device.key.netns_inum == options_.host_netns_inum
                              ? name_host_device(device.key.ifindex, read, ok)
                              : name_other_device(device, read.names, now);
    if (naming.fate == Naming::Fate::remove) {
      remove(device.key, device.per_cpu);
      seen.erase(device.key);
      continue;
    }
    if (naming.fate == Naming::Fate::show) {
      series.push_back({device.key, naming.name, std::move(device.per_cpu)});
    }
  }
  first_seen_ = std::move(seen);
  stale_.end_poll();
  std::erase_if(series, [this](DeviceSeries& device) {
    if (!filter_.exported(device.name)) return true;
    device.name = to_label_value(device.name);  // two names may give one label value
    return false;
  });
  filter_.forget_unused();
  keep_newest_per_name(series);
  if (options_.namespaces == NamespaceMode::all) sweep_orphan_names(read.devices, read.names);
  return series;
}

Poller::Naming Poller::name_host_device(std::uint32_t ifindex, const PollRead& read, bool& ok) {
  HostName resolved = resolve_host_name(ifindex, read.links_before, read.links_after);
  if (resolved.kind == HostName::Kind::unknown) {
    // Not in the view (an event not read yet, or lost): ask the kernel.
    char kernel_name[IF_NAMESIZE] = {};
    if (if_indextoname(ifindex, kernel_name) != nullptr) {
      resolved = {HostName::Kind::show, kernel_name};
    } else if (errno == ENXIO || errno == ENODEV) {
      // Deleted since it was counted, its event not applied yet: forget it,
      // so that a device that later gets the same ifindex starts from zero.
      return {Naming::Fate::remove, {}};
    } else {
      spdlog::warn("poll: naming ifindex {} failed: {}", ifindex, std::strerror(errno));
      metrics_.count_poll_error("name_resolution");
      ok = false;
      return {Naming::Fate::hide, {}};
    }
  }
  if (resolved.kind == HostName::Kind::skip) return {};  // next poll shows the right one
  return {Naming::Fate::show, std::move(resolved.name)};
}

Poller::Naming Poller::name_other_device(const DeviceCounters& device, const NameMap& names,
                                         std::chrono::steady_clock::time_point now) {
  std::uint64_t packets = 0;
  for (const auto& cpu : device.per_cpu) packets += cpu.packets;
  if (stale_.stale(device.key, packets, now)) {
    spdlog::debug("forgetting device netns={} ifindex={}: no packets for {}", device.key.netns_inum,
                  device.key.ifindex, format_duration(options_.stale_after));
    return {Naming::Fate::remove, {}};
  }
  const auto found = names.find(device.key);
  if (found != names.end()) {
    unnamed_.erase(device.key);
    return {Naming::Fate::show, found->second};
  }
  // The probe records the name before creating the entry: a missing name is
  // one deleted while the entry was re-created. Without its entry, the
  // device's next packet records its name again.
  if (unnamed_.insert(device.key).second) return {};
  unnamed_.erase(device.key);
  return {Naming::Fate::remove, {}};
}

void Poller::keep_newest_per_name(std::vector<DeviceSeries>& series) {
  const auto newest_first = [this](const DeviceSeries& a, const DeviceSeries& b) {
    const std::uint64_t seen_a = first_seen_.at(a.key);
    const std::uint64_t seen_b = first_seen_.at(b.key);
    return std::tie(a.key.netns_inum, a.name, seen_b, b.key.ifindex) <
           std::tie(b.key.netns_inum, b.name, seen_a, a.key.ifindex);
  };
  std::sort(series.begin(), series.end(), newest_first);
  std::vector<DeviceSeries> kept;
  kept.reserve(series.size());
  for (auto& device : series) {
    if (!kept.empty() && kept.back().key.netns_inum == device.key.netns_inum &&
        kept.back().name == device.name) {
      // An older device under a name a newer one holds. In the exporter's
      // namespace the kernel's names are unique: this is a rename caught
      // half-way, shown again at the next poll.
      if (device.key.netns_inum != options_.host_netns_inum) {
        spdlog::debug("removing device netns={} ifindex={}: {} is a newer device's name now",
                      device.key.netns_inum, device.key.ifindex, device.name);
        remove(device.key, device.per_cpu);
        first_seen_.erase(device.key);
      }
      continue;
    }
    kept.push_back(std::move(device));
  }
  series = std::move(kept);
}

void Poller::remove(const netif_rx_device_key& key, const std::vector<netif_rx_counters>& per_cpu) {
  for (const auto& error : reader_.delete_device(key)) {
    spdlog::warn("poll: {}", error.describe());
    metrics_.count_poll_error("map_delete");
  }
  if (removed_per_cpu_.size() < per_cpu.size()) removed_per_cpu_.resize(per_cpu.size());
  for (std::size_t cpu = 0; cpu < per_cpu.size(); ++cpu) {
    removed_per_cpu_[cpu].packets += per_cpu[cpu].packets;
    removed_per_cpu_[cpu].bytes += per_cpu[cpu].bytes;
  }
  stale_.forget(key);
  unnamed_.erase(key);
}

void Poller::warn_untracked(const std::vector<netif_rx_counters>& untracked,
                            std::chrono::steady_clock::time_point now) {
  std::uint64_t untracked_total = 0;
  for (const auto& cpu : untracked) untracked_total += cpu.packets;
  if (const auto pending = untracked_warning_.update(untracked_total, now)) {
    spdlog::warn(
        "the device map is full (max_devices={}): {} packets since the last warning were counted "
        "in netif_rx_untracked_packets_total without a device; raise max_devices",
        options_.max_devices, *pending);
  }
}

void Poller::sweep_orphan_names(const std::vector<DeviceCounters>& counters, const NameMap& names) {
  std::unordered_set<netif_rx_device_key, DeviceKeyHash> counted;
  counted.reserve(counters.size());
  for (const auto& device : counters) counted.insert(device.key);
  std::unordered_set<netif_rx_device_key, DeviceKeyHash> orphans;
  for (const auto& [key, name] : names) {
    if (counted.count(key)) continue;
    if (orphan_names_.count(key)) {
      for (const auto& error : reader_.delete_name(key)) {
        spdlog::warn("poll: {}", error.describe());
        metrics_.count_poll_error("map_delete");
      }
    } else {
      orphans.insert(key);
    }
  }
  orphan_names_ = std::move(orphans);
}

void Poller::start() {
  std::lock_guard lock(mutex_);
  stopping_ = false;
  thread_ = std::thread([this] { run(); });
}

void Poller::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::chrono::steady_clock::time_point Poller::last_success() const {
  std::lock_guard lock(mutex_);
  return last_success_;
}

void Poller::set_interval(Milliseconds interval) {
  {
    std::lock_guard lock(mutex_);
    options_.interval = interval;
    interval_changed_ = true;
  }
  wake_.notify_all();
}

void Poller::set_devices(DeviceFilterConfig devices, Milliseconds stale_after) {
  std::lock_guard lock(mutex_);
  pending_devices_ = PendingDevices{std::move(devices), stale_after};
}

void Poller::run() {
  Milliseconds interval;
  {
    std::lock_guard lock(mutex_);
    interval = options_.interval;
  }
  auto next = std::chrono::steady_clock::now() + interval;
  while (true) {
    {
      std::unique_lock lock(mutex_);
      if (wake_.wait_until(lock, next,
                           [this] { return stopping_ || interval_changed_ || removal_pending_; })) {
        if (stopping_) return;
        if (removal_pending_) {
          removal_pending_ = false;
          lock.unlock();
          apply_removals();
          continue;
        }
        // A new interval: the next poll is one new interval after the last.
        next += options_.interval - interval;
        interval = options_.interval;
        interval_changed_ = false;
        continue;
      }
    }
    poll_once();
    next += interval;
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now + interval;  // a slow poll: don't burst
  }
}

}  // namespace netif_rx
