#include "pipeline/poller.h"

#include <net/if.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <utility>

#include "pipeline/cpu_list.h"
#include "util/log.h"

namespace netif_rx {
namespace {

double unix_seconds_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The kernel's name for an ifindex of this namespace.
KernelLinkName kernel_link_name(std::uint32_t ifindex) {
  char name[IF_NAMESIZE] = {};
  if (if_indextoname(ifindex, name) != nullptr) return {KernelLinkName::Kind::found, name, 0};
  const int error = errno;
  if (error == ENXIO || error == ENODEV) return {KernelLinkName::Kind::gone, {}, error};
  return {KernelLinkName::Kind::failed, {}, error};
}

// The errors of one map access, as errors of the poll with `reason`.
std::vector<PollError> poll_errors(const std::vector<MapAccessError>& errors, const char* reason) {
  std::vector<PollError> out;
  out.reserve(errors.size());
  for (const auto& error : errors) out.push_back({reason, error.describe()});
  return out;
}

void append(std::vector<PollError>& errors, std::vector<PollError> more) {
  errors.insert(errors.end(), std::make_move_iterator(more.begin()),
                std::make_move_iterator(more.end()));
}

// The array slots of the devices the view knows: a device not in it yet is
// read at the next poll (the step would not name it anyway).
std::vector<std::uint32_t> ifindexes_of(const LinkView& links) {
  std::vector<std::uint32_t> ifindexes;
  ifindexes.reserve(links.size());
  for (const auto& [ifindex, info] : links) ifindexes.push_back(ifindex);
  return ifindexes;
}

}  // namespace

Poller::Poller(MapReader reader, PollerOptions options, LinkViewSource host_links,
               SnapshotStore& store, PollObserver& metrics, std::shared_ptr<RemovalQueue> removals)
    : reader_(std::move(reader)),
      options_(std::move(options)),
      host_links_(std::move(host_links)),
      step_(options_),
      removals_(removals ? std::move(removals) : std::make_shared<RemovalQueue>()),
      store_(store),
      metrics_(metrics) {
  // A pinned probe's earlier exporter kept its removed counts in the map.
  auto removed = reader_.read_removed();
  if (removed.ok()) {
    step_.restore_removed(removed.value);
    persisted_removed_ = std::move(removed.value);
  } else {
    for (const auto& error : removed.errors)
      log::warn("reading the removed counts failed: they start from zero",
                {{"err", error.describe()}});
  }
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

std::vector<PollError> Poller::apply_removals() {
  std::vector<PollError> errors;
  for (const std::uint32_t ifindex : removals_->take()) {
    append(errors, forget_removed_device(ifindex));
  }
  return errors;
}

std::vector<PollError> Poller::forget_removed_device(std::uint32_t ifindex) {
  const netif_rx_device_key key{options_.host_netns_inum, ifindex, 0};  // own namespace: salt 0
  auto counters = reader_.read_device(key);
  auto errors = poll_errors(counters.errors, "map_read");
  if (!counters.ok() || counters.value.empty()) return errors;  // no entry
  log::debug("forgetting device",
             {{"netns", key.netns_inum}, {"ifindex", key.ifindex}, {"why", "the device is gone"}});
  append(errors, poll_errors(reader_.delete_device(key), "map_delete"));
  step_.account_removed(key, counters.value);
  return errors;
}

bool Poller::poll_once() {
  const auto started = std::chrono::steady_clock::now();
  apply_pending_reload();
  auto polled = read_and_run_step(started);
  const bool ok = report(polled.errors);
  if (!polled.value) {  // the maps could not be read: nothing to publish
    finish(false, started);
    return false;
  }
  publish(std::move(*polled.value));
  finish(ok, started);
  return ok;
}

Poller::Outcome<std::optional<PollResult>> Poller::read_and_run_step(
    std::chrono::steady_clock::time_point started) {
  HostLinks links;
  links.before = host_links_();
  // After the first view: a removal it reflects is applied before the read.
  std::vector<PollError> errors = apply_removals();
  append(errors, persist_removed());  // before a failed read can skip it
  auto read = read_maps(*links.before);
  append(errors, std::move(read.errors));
  if (!read.value) return {std::nullopt, std::move(errors)};
  links.after = host_links_();
  append(errors, read_names(*read.value));
  links.ask_kernel = kernel_link_name;

  PollResult result = step_.run(std::move(*read.value), links, started);
  append(errors, apply_deletions(result.deletions));
  append(errors, persist_removed());
  append(errors, std::exchange(result.errors, {}));
  return {std::move(result), std::move(errors)};
}

void Poller::publish(PollResult result) {
  for (const auto& warning : result.warnings) log::warn("poll warning", {{"detail", warning}});
  auto snapshot = std::make_shared<Snapshot>(std::move(result.snapshot));
  snapshot->cpus = present_cpus();
  if (bpf_stats_) snapshot->bpf = bpf_stats_(result.device_entries);
  store_.publish(std::move(snapshot));
}

void Poller::apply_pending_reload() {
  std::optional<PendingDevices> reloaded;
  {
    std::lock_guard lock(mutex_);
    reloaded.swap(pending_devices_);
  }
  if (!reloaded) return;
  options_.devices = reloaded->devices;
  options_.stale_after = reloaded->stale_after;
  step_.reconfigure(std::move(reloaded->devices), reloaded->stale_after);
}

Poller::Outcome<std::optional<MapContents>> Poller::read_maps(const LinkView& links) {
  auto counted = reader_.read_counted();  // first: see MapContents
  auto counters = reader_.read_device_counters();
  // The first read takes every slot of the array: an adopted probe may hold
  // the counts of devices deleted while no exporter ran, which the step
  // then finds gone and moves to the removed counts.
  std::vector<std::uint32_t> ifindexes = ifindexes_of(links);
  if (read_every_slot_) {
    for (std::uint32_t ifindex = 1; ifindex < reader_.host_slots(); ++ifindex) {
      if (links.count(ifindex) == 0) ifindexes.push_back(ifindex);
    }
  }
  auto host_slots = reader_.read_host_slots(ifindexes);
  auto untracked = reader_.read_untracked();
  auto fallbacks = reader_.read_gso_fallbacks();
  std::vector<PollError> errors;
  for (const auto* read_errors : {&counted.errors, &counters.errors, &host_slots.errors,
                                  &untracked.errors, &fallbacks.errors}) {
    append(errors, poll_errors(*read_errors, "map_read"));
  }
  if (!errors.empty()) return {std::nullopt, std::move(errors)};
  read_every_slot_ = false;
  MapContents contents;
  contents.counted_per_cpu = std::move(counted.value);
  contents.device_counters = std::move(counters.value);
  contents.host_slots = std::move(host_slots.value);
  contents.untracked_per_cpu = std::move(untracked.value);
  contents.gso_fallbacks = std::move(fallbacks.value);
  return {std::move(contents), {}};
}

std::vector<PollError> Poller::read_names(MapContents& contents) {
  if (options_.namespaces != NamespaceMode::all) return {};
  auto names = reader_.read_device_names();
  contents.device_names = std::move(names.value);
  return poll_errors(names.errors, "map_read");
}

std::vector<PollError> Poller::apply_deletions(const std::vector<MapDeletion>& deletions) {
  std::vector<PollError> errors;
  for (const auto& deletion : deletions) {
    log::debug("forgetting device", {{"netns", deletion.key.netns_inum},
                                     {"netns_salt", deletion.key.netns_salt},
                                     {"ifindex", deletion.key.ifindex},
                                     {"why", deletion.why}});
    append(errors, poll_errors(deletion.scope == MapDeletion::Scope::device
                                   ? reader_.delete_device(deletion.key)
                                   : reader_.delete_name(deletion.key),
                               "map_delete"));
  }
  return errors;
}

std::vector<PollError> Poller::persist_removed() {
  const auto& removed = step_.removed_per_cpu();
  const bool same = removed.size() == persisted_removed_.size() &&
                    std::equal(removed.begin(), removed.end(), persisted_removed_.begin(),
                               [](const netif_rx_counters& a, const netif_rx_counters& b) {
                                 return a.skbs == b.skbs && a.merged_packets == b.merged_packets &&
                                        a.bytes == b.bytes;
                               });
  if (same) return {};
  // Part of deleting entries: their counts move into the map's removed slot.
  auto errors = poll_errors(reader_.write_removed(removed), "map_delete");
  if (errors.empty()) persisted_removed_ = removed;
  return errors;
}

bool Poller::report(const std::vector<PollError>& errors) {
  for (const auto& error : errors) {
    log::warn("poll failed", {{"reason", error.reason}, {"err", error.message}});
    metrics_.count_poll_error(error.reason);
  }
  return errors.empty();
}

void Poller::finish(bool ok, std::chrono::steady_clock::time_point started) {
  const auto finished = std::chrono::steady_clock::now();
  metrics_.observe_poll(std::chrono::duration<double>(finished - started).count());
  if (!ok) return;
  metrics_.set_last_poll_timestamp(unix_seconds_now());
  {
    std::lock_guard lock(mutex_);
    last_success_ = finished;
  }
  if (after_success_) after_success_();
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
      if (wake_.wait_until(lock, next,
                           [this] { return stopping_ || interval_changed_ || removal_pending_; })) {
        if (stopping_) return;
        if (removal_pending_) {
          removal_pending_ = false;
          lock.unlock();
          report(apply_removals());  // counted; the next poll decides its own success
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
