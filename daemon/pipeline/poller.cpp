#include "pipeline/poller.h"

#include <net/if.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <unordered_map>
#include <utility>

#include "continuity/probe_error.h"
#include "counters/per_cpu_sum.h"
#include "pipeline/cpu_list.h"
#include "util/log.h"
#include "util/test_hook.h"

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
      drops_filter_(options_.devices),
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
  if (options_.namespaces == NamespaceMode::all && reader_.netns_blocks() > 0) {
    netns_blocks_.emplace(reader_.netns_blocks(), reader_.netns_table_size());
    try {
      runs_barrier_.emplace();
    } catch (const ProbeError& e) {
      log::warn(
          "retired namespace blocks are drained a poll later, without waiting for the "
          "probe's runs",
          {{"err", e.what()}});
    }
    auto table = reader_.read_netns_table();
    if (!table.ok()) {
      for (const auto& error : table.errors)
        log::warn("reading the namespace table failed: every entry is emptied first",
                  {{"err", error.describe()}});
      // Every entry stray: emptied at the first poll, the blocks drained after.
      table.value.assign(reader_.netns_table_size(), {1, 0, NETIF_RX_NO_BLOCK, 0});
    }
    netns_blocks_->adopt(table.value);
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
  if (!counters.ok()) return errors;
  const bool carried = carried_.add_to(key, counters.value);
  if (counters.value.empty() && !carried) return errors;  // no entry
  log::debug("forgetting device",
             {{"netns", key.netns_inum}, {"ifindex", key.ifindex}, {"why", "the device is gone"}});
  append(errors, poll_errors(reader_.delete_device(key), "map_delete"));
  append(errors, poll_errors(carried_.forget(key), "map_delete"));
  step_.account_removed(key, counters.value);
  forgotten_.push_back(key);
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
  test_hook("poll.after_read");
  append(errors, std::move(read.errors));
  if (!read.value) return {std::nullopt, std::move(errors)};
  links.after = host_links_();
  if (links.after != links.before) {
    append(errors, read_new_host_slots(*links.before, *links.after, *read.value));
  }
  append(errors, read_names(*read.value));
  links.ask_kernel = kernel_link_name;

  PollResult result = step_.run(std::move(*read.value), links, started);
  append(errors, apply_deletions(result.deletions));
  if (!forgotten_.empty()) {
    if (forgotten_sink_) forgotten_sink_(forgotten_);
    forgotten_.clear();
  }
  append(errors, place_netns_blocks());
  append(errors, persist_removed());
  append(errors, std::exchange(result.errors, {}));
  return {std::move(result), std::move(errors)};
}

void Poller::publish(PollResult result) {
  for (const auto& warning : result.warnings) log::warn("poll warning", {{"detail", warning}});
  // Released by the last of the store and the scrapes to hold it, it comes
  // back here: its per-CPU vectors serve a later read, which then allocates
  // none per device.
  std::shared_ptr<Snapshot> snapshot(
      new Snapshot(std::move(result.snapshot)),
      [released = released_](Snapshot* done) { released->add(std::unique_ptr<Snapshot>(done)); });
  snapshot->cpus = present_cpus();
  if (drops_) {
    const std::size_t max_series = step_.options().max_series;
    snapshot->drops =
        drops_(max_series > snapshot->series ? max_series - snapshot->series : 0,
               [this](std::string_view name) { return drops_filter_.exported(name); });
    snapshot->series += snapshot->drops.series_count();
  }
  PerCpuDeviceLabels labels;
  if (napi_ || routes_) {
    for (const DeviceSeries& device : snapshot->devices) {
      if (device.per_cpu_detail) labels.emplace(device.key, device.name);
    }
  }
  if (napi_) {
    const std::size_t max_series = step_.options().max_series;
    snapshot->napi =
        napi_(max_series > snapshot->series ? max_series - snapshot->series : 0, labels);
    snapshot->series += snapshot->napi.series_count();
  }
  if (routes_) {
    const std::size_t max_series = step_.options().max_series;
    snapshot->routes =
        routes_(max_series > snapshot->series ? max_series - snapshot->series : 0, labels);
    snapshot->series += snapshot->routes.series_count();
  }
  // After the drop and NAPI counters' reads, whose keys it counts.
  if (bpf_stats_) {
    HashMapEntries other_entries;
    if (snapshot->drops.attached) {
      other_entries.emplace("drop_counters", snapshot->drops.counter_entries);
      other_entries.emplace("drop_device_names", snapshot->drops.name_entries);
    }
    if (snapshot->napi.attached)
      other_entries.emplace("napi_counters", snapshot->napi.counter_entries);
    if (snapshot->routes.attached) {
      other_entries.emplace("queue_counters", snapshot->routes.queue_entries);
      other_entries.emplace("steer_counters", snapshot->routes.steer_entries);
    }
    snapshot->bpf = bpf_stats_(result.device_entries, other_entries);
  }
  store_.publish(std::move(snapshot)).reset();  // the one replaced: released outside its lock
  for (auto& per_cpu : result.spare_per_cpu) reader_.recycle(std::move(per_cpu));
  for (const std::unique_ptr<Snapshot>& done : released_->take()) {
    for (DeviceSeries& device : done->devices) reader_.recycle(std::move(device.per_cpu));
  }
}

void Poller::apply_pending_reload() {
  std::optional<PendingDevices> reloaded;
  {
    std::lock_guard lock(mutex_);
    reloaded.swap(pending_devices_);
  }
  if (!reloaded) return;
  options_.devices = reloaded->devices;
  drops_filter_ = DeviceFilter(options_.devices);
  options_.stale_after = reloaded->stale_after;
  options_.per_cpu = reloaded->per_cpu;
  options_.max_series = reloaded->max_series;
  step_.reconfigure(std::move(reloaded->devices), reloaded->stale_after,
                    std::move(reloaded->per_cpu), reloaded->max_series);
}

Poller::Outcome<std::optional<MapContents>> Poller::read_maps(const LinkView& links) {
  auto counted = reader_.read_counted();  // first: see MapContents
  auto counters = reader_.read_device_counters();
  // The first read takes every slot of the array: an adopted probe may hold
  // the counts of devices deleted while no exporter ran, which the step
  // then finds gone and moves to the removed counts.
  std::vector<std::uint32_t> ifindexes = ifindexes_of(links);
  slots_read_all_ = read_every_slot_;
  if (read_every_slot_) {
    for (std::uint32_t ifindex = 1; ifindex < reader_.host_slots(); ++ifindex) {
      if (links.count(ifindex) == 0) ifindexes.push_back(ifindex);
    }
  } else {
    // Gone devices in their grace: read until their entries are deleted.
    for (const std::uint32_t ifindex : step_.gone_ifindexes()) {
      if (ifindex < reader_.host_slots() && links.count(ifindex) == 0) ifindexes.push_back(ifindex);
    }
  }
  auto host_slots = reader_.read_host_slots(ifindexes);
  auto untracked = reader_.read_untracked();
  auto fallbacks = reader_.read_gso_fallbacks();
  std::vector<PollError> errors;
  MapContents contents;
  contents.device_counters = std::move(counters.value);
  if (counters.ok()) append(errors, read_netns_blocks(contents));
  for (const auto* read_errors : {&counted.errors, &counters.errors, &host_slots.errors,
                                  &untracked.errors, &fallbacks.errors}) {
    append(errors, poll_errors(*read_errors, "map_read"));
  }
  if (!errors.empty()) return {std::nullopt, std::move(errors)};
  read_every_slot_ = false;
  contents.counted_per_cpu = std::move(counted.value);
  std::move(host_slots.value.begin(), host_slots.value.end(),
            std::back_inserter(contents.host_slots));
  contents.untracked_per_cpu = std::move(untracked.value);
  contents.gso_fallbacks = std::move(fallbacks.value);
  // Before the carried counts are added: the drained slots are carried to
  // their devices, and this snapshot shows them.
  std::vector<PollError> drain_errors = drain_netns_blocks();
  carried_.add_to(contents);
  return {std::move(contents), std::move(drain_errors)};
}

std::vector<PollError> Poller::read_new_host_slots(const LinkView& before, const LinkView& after,
                                                   MapContents& contents) {
  if (slots_read_all_) return {};
  // A device that came while the maps were read may have counted already
  // (in the probe's total, read first): its slot too, or the poll is short.
  std::vector<std::uint32_t> ifindexes;
  for (const auto& [ifindex, info] : after) {
    if (ifindex < reader_.host_slots() && before.count(ifindex) == 0) ifindexes.push_back(ifindex);
  }
  if (ifindexes.empty()) return {};
  const std::vector<std::uint32_t> gone = step_.gone_ifindexes();  // read already
  std::erase_if(ifindexes, [&gone](std::uint32_t ifindex) {
    return std::find(gone.begin(), gone.end(), ifindex) != gone.end();
  });
  auto slots = reader_.read_host_slots(ifindexes);
  std::move(slots.value.begin(), slots.value.end(), std::back_inserter(contents.host_slots));
  return poll_errors(slots.errors, "map_read");
}

std::vector<PollError> Poller::read_names(MapContents& contents) {
  if (options_.namespaces != NamespaceMode::all) return {};
  auto names = reader_.read_device_names();
  contents.device_names = std::move(names.value);
  return poll_errors(names.errors, "map_read");
}

std::vector<PollError> Poller::read_netns_blocks(MapContents& contents) {
  netns_present_.clear();
  netns_wanted_.clear();
  if (!netns_blocks_) return {};
  std::vector<PollError> errors;
  std::unordered_map<netif_rx_device_key, std::size_t, DeviceKeyHash> in_hash;
  in_hash.reserve(contents.device_counters.size());
  for (std::size_t i = 0; i < contents.device_counters.size(); ++i) {
    const netif_rx_device_key& key = contents.device_counters[i].key;
    if (key.netns_inum == options_.host_netns_inum) continue;
    in_hash.emplace(key, i);
    netns_present_.push_back({key.netns_inum, key.netns_salt});
    if (key.ifindex != 0 && key.ifindex < reader_.netns_block_slots())
      netns_wanted_.push_back({key.netns_inum, key.netns_salt});
  }
  for (const PlacedNetns& placed : netns_blocks_->placed()) {
    auto slots = reader_.read_netns_block(placed);
    append(errors, poll_errors(slots.errors, "map_read"));
    for (auto& device : slots.value) {
      netns_present_.push_back(placed.netns);
      const auto found = in_hash.find(device.key);
      if (found == in_hash.end()) {
        contents.host_slots.push_back(std::move(device));  // a slot alone
        continue;
      }
      // Counted in the hash before its namespace was placed, and since in the slot.
      add_per_cpu(contents.device_counters[found->second].per_cpu, device.per_cpu);
    }
  }
  return errors;
}

std::vector<PollError> Poller::drain_netns_blocks() {
  if (!netns_blocks_) return {};
  const std::vector<PlacedNetns> retiring_blocks = netns_blocks_->to_drain();
  if (retiring_blocks.empty()) return {};
  // A run of the probe that read a block's entry before the poll emptied it
  // may still be writing its slots: drain once every run that started before
  // now is over (an RCU grace period), not merely a poll later.
  if (runs_barrier_) {
    try {
      runs_barrier_->wait();
    } catch (const ProbeError& e) {
      return {
          {"map_read", std::string("waiting for the probe's runs before a drain: ") + e.what()}};
    }
  }
  std::vector<PollError> errors;
  for (const PlacedNetns& retiring : retiring_blocks) {
    if (drain_block(retiring, errors)) netns_blocks_->drained(retiring.block);
  }
  return errors;
}

bool Poller::drain_block(const PlacedNetns& retiring, std::vector<PollError>& errors) {
  // Counted after the poll that retired the namespace read its entries (or
  // by a run of the probe that read its entry before): its devices' counts.
  auto slots = reader_.read_netns_block(retiring);
  if (!slots.ok()) {
    append(errors, poll_errors(slots.errors, "map_read"));
    return false;
  }
  bool complete = true;
  for (DeviceCounters& slot : slots.value) {
    // Slot by slot: what one zeroed holds is accounted for even if the next
    // one fails (the block is then drained again at the next poll).
    if (auto failed = reader_.zero_netns_slot(retiring.block, slot.key.ifindex); !failed.empty()) {
      append(errors, poll_errors(failed, "map_delete"));
      complete = false;
      continue;
    }
    if (retiring.netns.inum == 0) {  // whose it was is not known (an adopted block)
      step_.add_removed(slot.per_cpu);
      continue;
    }
    log::debug("carrying a retired block's counts to its device",
               {{"netns", slot.key.netns_inum}, {"ifindex", slot.key.ifindex}});
    if (auto failed = carried_.carry(slot.key, slot.per_cpu); !failed.empty()) {
      append(errors, poll_errors(failed, "map_delete"));
      step_.add_removed(slot.per_cpu);  // counted still, as removed
    }
  }
  return complete;
}

std::vector<PollError> Poller::place_netns_blocks() {
  if (!netns_blocks_) return {};
  std::vector<PollError> errors;
  for (const NetnsTableWrite& write : netns_blocks_->plan(netns_present_, netns_wanted_)) {
    log::debug(write.entry.netns_inum == 0 ? "retiring a namespace's block"
                                           : "placing a namespace in a block",
               {{"entry", write.index},
                {"netns", write.entry.netns_inum},
                {"netns_salt", write.entry.netns_salt},
                {"block", write.entry.block}});
    auto written = reader_.write_netns_entry(write);
    if (!written.empty()) {
      append(errors, poll_errors(written, "map_delete"));
      continue;
    }
    netns_blocks_->applied(write);
  }
  return errors;
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
    if (deletion.scope != MapDeletion::Scope::device) continue;
    forgotten_.push_back(deletion.key);
    // Its carried counts were read with the rest.
    append(errors, poll_errors(carried_.forget(deletion.key), "map_delete"));
    if (!netns_blocks_) continue;
    // A device of a placed namespace: its slot goes too (its counts were
    // read with its hash entry's).
    if (const auto block =
            netns_blocks_->block_of({deletion.key.netns_inum, deletion.key.netns_salt})) {
      append(errors,
             poll_errors(reader_.zero_netns_slot(*block, deletion.key.ifindex), "map_delete"));
    }
  }
  return errors;
}

std::vector<PollError> Poller::persist_removed() {
  const std::vector<netif_rx_counters> removed = step_.removed_to_persist();
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

void Poller::set_devices(DeviceFilterConfig devices, Milliseconds stale_after, PerCpuConfig per_cpu,
                         std::uint32_t max_series) {
  std::lock_guard lock(mutex_);
  pending_devices_ =
      PendingDevices{std::move(devices), stale_after, std::move(per_cpu), max_series};
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
          // Kept in the map at once: a crash must not find the entries gone
          // and their counts nowhere (the next poll may be a whole interval away).
          std::vector<PollError> errors = apply_removals();
          append(errors, persist_removed());
          report(errors);  // counted; the next poll decides its own success
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
