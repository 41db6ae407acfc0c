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
               SnapshotStore& store, SelfMetrics& metrics)
    : reader_(std::move(reader)),
      options_(options),
      host_links_(std::move(host_links)),
      filter_(DeviceFilter(options_.devices)),
      stale_(options_.stale_after),
      store_(store),
      metrics_(metrics) {}

Poller::~Poller() { stop(); }

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
  const auto report = [&](const std::vector<MapReadError>& errors, const char* reason) {
    for (const auto& error : errors) {
      spdlog::warn("poll: {}", error.describe());
      metrics_.count_poll_error(reason);
      ok = false;
    }
  };

  // The links before and after the map read: a device is shown only if the
  // same device held its ifindex in both (see resolve_host_name), so a count
  // read just before a deletion never appears under a successor's name.
  const LinkView links_before = host_links_();
  // After the first view: a removal it reflects is deleted before the read.
  delete_removed_devices();
  auto counters = reader_.read_device_counters();
  report(counters.errors, "map_read");
  auto untracked = reader_.read_untracked();
  report(untracked.errors, "map_read");
  if (!counters.ok() || !untracked.ok()) return false;
  const LinkView links_after = host_links_();

  decltype(reader_.read_device_names().value) recorded_names;
  if (options_.namespaces == NamespaceMode::all) {
    auto names = reader_.read_device_names();
    report(names.errors, "map_read");
    recorded_names = std::move(names.value);
  }

  auto snapshot = std::make_shared<Snapshot>();
  snapshot->cpus = present_cpus();
  snapshot->untracked_per_cpu = std::move(untracked.value);
  snapshot->devices.reserve(counters.value.size());
  std::size_t deleted = 0;  // entries removed from the map by this poll
  for (auto& device : counters.value) {
    std::string name;
    if (device.key.netns_inum == options_.host_netns_inum) {
      HostName resolved = resolve_host_name(device.key.ifindex, links_before, links_after);
      if (resolved.kind == HostName::Kind::unknown) {
        // Not in the view (an event not read yet, or lost): ask the kernel.
        char kernel_name[IF_NAMESIZE] = {};
        if (if_indextoname(device.key.ifindex, kernel_name) != nullptr) {
          resolved = {HostName::Kind::show, kernel_name};
        } else if (errno == ENXIO || errno == ENODEV) {
          // Deleted since it was counted: forget it, so that a device that
          // later gets the same ifindex starts from zero.
          report(reader_.delete_device(device.key), "map_delete");
          ++deleted;
          continue;
        } else {
          spdlog::warn("poll: naming ifindex {} failed: {}", device.key.ifindex,
                       std::strerror(errno));
          metrics_.count_poll_error("name_resolution");
          ok = false;
          continue;
        }
      }
      if (resolved.kind == HostName::Kind::skip) continue;  // next poll shows the right one
      name = std::move(resolved.name);
    } else {
      std::uint64_t packets = 0;
      for (const auto& cpu : device.per_cpu) packets += cpu.packets;
      if (stale_.stale(device.key, packets, started)) {
        forget(device.key);
        ++deleted;
        continue;
      }
      const auto found = recorded_names.find(device.key);
      // The probe writes the name just after creating the entry: a missing
      // name means "just created"; the next poll has it.
      if (found == recorded_names.end()) continue;
      name = found->second;
    }
    if (!filter_.exported(name)) continue;
    snapshot->devices.push_back({device.key, to_label_value(name), std::move(device.per_cpu)});
  }
  stale_.end_poll();
  filter_.forget_unused();
  if (options_.namespaces == NamespaceMode::all) sweep_orphan_names(counters.value, recorded_names);
  std::sort(snapshot->devices.begin(), snapshot->devices.end(),
            [](const DeviceSeries& a, const DeviceSeries& b) {
              return std::tie(a.name, a.key.netns_inum, a.key.ifindex) <
                     std::tie(b.name, b.key.netns_inum, b.key.ifindex);
            });

  std::uint64_t untracked_total = 0;
  for (const auto& cpu : snapshot->untracked_per_cpu) untracked_total += cpu.packets;
  if (const auto pending = untracked_warning_.update(untracked_total, started)) {
    spdlog::warn(
        "the device map is full (max_devices={}): {} packets since the last warning were counted "
        "in netif_rx_untracked_packets_total without a device; raise max_devices",
        options_.max_devices, *pending);
  }
  if (bpf_stats_) snapshot->bpf = bpf_stats_(counters.value.size() - deleted);
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

void Poller::sweep_orphan_names(
    const std::vector<DeviceCounters>& counters,
    const std::unordered_map<netif_rx_device_key, std::string, DeviceKeyHash>& names) {
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

void Poller::forget(const netif_rx_device_key& key) {
  spdlog::debug("forgetting device netns={} ifindex={}: no packets for {}", key.netns_inum,
                key.ifindex, format_duration(options_.stale_after));
  const auto errors = reader_.delete_device(key);
  for (const auto& error : errors) {
    spdlog::warn("poll: {}", error.describe());
    metrics_.count_poll_error("map_delete");
  }
  stale_.forget(key);
}

void Poller::delete_removed_devices() {
  if (!removed_) return;
  for (std::uint32_t ifindex : removed_->take()) {
    for (const auto& error : reader_.delete_device({options_.host_netns_inum, ifindex})) {
      spdlog::warn("deleting the entries of a removed device: {}", error.describe());
      metrics_.count_poll_error("map_delete");
    }
  }
}

void Poller::start() {
  std::lock_guard lock(mutex_);
  stopping_ = false;
  thread_ = std::thread([this] {
    if (on_thread_start_) on_thread_start_();
    run();
  });
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
      if (wake_.wait_until(lock, next, [this] { return stopping_ || interval_changed_; })) {
        if (stopping_) return;
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
