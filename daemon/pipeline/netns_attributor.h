// The attribution's thread: resolves who owns each namespace of the latest
// snapshot, off the scrape path. It looks at the latest snapshot every
// `check_interval`; a namespace it has not resolved yet (new, or an inode
// with a new salt) starts a scan at once, at most every `min_interval`; and
// everything is rescanned every `refresh_interval`. It publishes a table per
// scan into `info`; scrapes only take the latest. It never touches the probe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "config/config.h"
#include "owners/netns_info_table.h"
#include "owners/owner_resolution.h"
#include "pipeline/snapshot_store.h"

namespace netif_rx {

// One scan of the node (scan_node in the daemon; a fake tree's in tests).
using NodeScanner = std::function<NodeScan()>;

struct AttributorOptions {
  Milliseconds check_interval{1000};
  Milliseconds min_interval = kAttributionMinInterval;
  Milliseconds refresh_interval{60000};
  std::size_t max_namespaces = 4096;
  // The probe's salt is the low half of net_cookie (Linux >= 5.12), which is
  // the namespace id NS_GET_ID gives (see build_info_table).
  bool salt_is_netns_id = false;
};

class NetnsAttributor {
 public:
  NetnsAttributor(const SnapshotStore& snapshots, NetnsInfoStore& info, NodeScanner scanner,
                  AttributorOptions options);
  ~NetnsAttributor();
  NetnsAttributor(const NetnsAttributor&) = delete;
  NetnsAttributor& operator=(const NetnsAttributor&) = delete;

  // One check on the caller's thread: scans when due. True when it scanned.
  bool check_once();
  // Checks on a thread of its own until stop(); `on_thread_start` runs first
  // there (naming the thread).
  void start(std::function<void()> on_thread_start = {});
  void stop();

 private:
  void run(const std::function<void()>& on_thread_start);

  const SnapshotStore& snapshots_;
  NetnsInfoStore& info_;
  NodeScanner scanner_;
  AttributorOptions options_;
  // Used by the checking thread only.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> resolved_;
  std::chrono::steady_clock::time_point last_scan_{};
  AttributionCounts counts_;

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace netif_rx
