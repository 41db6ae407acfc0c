#include "poller.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "cpu_list.h"
#include "host_interfaces.h"
#include "label_value.h"

namespace netif_rx {
namespace {

double unix_seconds_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

Poller::Poller(MapReader reader, PollerOptions options, SnapshotStore& store, SelfMetrics& metrics)
    : reader_(std::move(reader)), options_(options), store_(store), metrics_(metrics) {}

Poller::~Poller() { stop(); }

bool Poller::poll_once() {
  const auto started = std::chrono::steady_clock::now();
  bool ok = true;
  const auto report = [&](const std::vector<MapReadError>& errors, const char* reason) {
    for (const auto& error : errors) {
      spdlog::warn("poll: {}", error.describe());
      metrics_.count_poll_error(reason);
      ok = false;
    }
  };

  // Map first, interface list second: a device that had counts and is missing
  // from the later list was deleted, not just created.
  auto counters = reader_.read_device_counters();
  report(counters.errors, "map_read");
  auto untracked = reader_.read_untracked();
  report(untracked.errors, "map_read");
  if (!counters.ok() || !untracked.ok()) return false;

  const auto interfaces = list_host_interfaces();
  if (!interfaces) {
    spdlog::warn("poll: listing network devices failed: {}", std::strerror(errno));
    metrics_.count_poll_error("name_resolution");
    return false;
  }
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
  for (auto& device : counters.value) {
    std::string name;
    if (device.key.netns_inum == options_.host_netns_inum) {
      const auto found = interfaces->find(device.key.ifindex);
      if (found == interfaces->end()) {
        // Deleted since it was counted: forget it, so that a device that
        // later gets the same ifindex starts from zero.
        report(reader_.delete_device(device.key), "map_delete");
        continue;
      }
      name = found->second;
    } else {
      const auto found = recorded_names.find(device.key);
      name = found != recorded_names.end() ? found->second
                                           : "ifindex" + std::to_string(device.key.ifindex);
    }
    snapshot->devices.push_back({device.key, to_label_value(name), std::move(device.per_cpu)});
  }
  std::sort(snapshot->devices.begin(), snapshot->devices.end(),
            [](const DeviceSeries& a, const DeviceSeries& b) {
              return std::tie(a.name, a.key.netns_inum, a.key.ifindex) <
                     std::tie(b.name, b.key.netns_inum, b.key.ifindex);
            });
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
