#include "pipeline/netns_attributor.h"

#include <exception>

#include "pipeline/netns_attribution.h"

namespace netif_rx {

NetnsAttributor::NetnsAttributor(const SnapshotStore& snapshots, NetnsInfoStore& info,
                                 NodeScanner scanner, AttributorOptions options)
    : snapshots_(snapshots), info_(info), scanner_(std::move(scanner)), options_(options) {}

NetnsAttributor::~NetnsAttributor() { stop(); }

bool NetnsAttributor::check_once() {
  const auto snapshot = snapshots_.latest();
  auto namespaces = namespaces_of(*snapshot);
  const auto now = std::chrono::steady_clock::now();
  const bool never = last_scan_.time_since_epoch().count() == 0;
  const bool fresh_needed = has_new_namespace(resolved_, namespaces) &&
                            (never || now - last_scan_ >= options_.min_interval);
  const bool refresh_due = never || now - last_scan_ >= options_.refresh_interval;
  if (!fresh_needed && !refresh_due) return false;

  const auto started = std::chrono::steady_clock::now();
  const NodeScan scan = scanner_();
  last_scan_ = std::chrono::steady_clock::now();
  ++counts_.scans;
  counts_.last_scan_seconds = std::chrono::duration<double>(last_scan_ - started).count();
  counts_.unreadable_processes = scan.processes.unreadable;
  counts_.dropped_processes += scan.processes.dropped;
  counts_.dropped_bundles += scan.bundles.dropped;
  counts_.dropped_pods += scan.pod_logs.dropped;
  auto table = build_info_table(namespaces, scan, options_.max_namespaces, counts_,
                                options_.salt_is_netns_id);
  counts_.dropped_namespaces = table.counts.dropped_namespaces;
  info_.publish(std::make_shared<const NetnsInfoTable>(std::move(table)));
  resolved_ = std::move(namespaces);
  return true;
}

void NetnsAttributor::start(std::function<void()> on_thread_start) {
  if (thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = false;
  }
  thread_ =
      std::thread([this, on_thread_start = std::move(on_thread_start)] { run(on_thread_start); });
}

void NetnsAttributor::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void NetnsAttributor::run(const std::function<void()>& on_thread_start) {
  if (on_thread_start) on_thread_start();
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    try {
      check_once();
    } catch (const std::exception&) {
      // Out of memory in a scan: the last table stays; the next check retries.
    }
    lock.lock();
    wake_.wait_for(lock, options_.check_interval, [this] { return stopping_; });
  }
}

}  // namespace netif_rx
