// What the attribution publishes for scrapes: the owner of each namespace the
// last snapshot had, keyed by (inode, salt) so that a namespace that takes a
// dead one's inode never shows its attribution, and the scans' own counts.
// Immutable once published.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "owners/netns_owner.h"

namespace netif_rx {

struct NetnsInfoEntry {
  std::uint32_t inum = 0;
  std::uint32_t salt = 0;
  NetnsOwner owner;
};

struct AttributionCounts {
  std::uint64_t scans = 0;
  double last_scan_seconds = 0;
  std::uint64_t unreadable_processes = 0;  // in the last scan
  // Cumulative: what the bounds left out.
  std::uint64_t dropped_namespaces = 0;
  std::uint64_t dropped_processes = 0;
  std::uint64_t dropped_bundles = 0;
  std::uint64_t dropped_pods = 0;
};

struct NetnsInfoTable {
  std::vector<NetnsInfoEntry> entries;  // sorted by (inum, salt)
  AttributionCounts counts;

  // The entry of exactly this namespace, or null.
  const NetnsInfoEntry* find(std::uint32_t inum, std::uint32_t salt) const;
};

// Hands the latest table to scrapes, as SnapshotStore does snapshots.
class NetnsInfoStore {
 public:
  std::shared_ptr<const NetnsInfoTable> latest() const {
    std::lock_guard lock(mutex_);
    return latest_;
  }
  void publish(std::shared_ptr<const NetnsInfoTable> table) {
    std::lock_guard lock(mutex_);
    latest_ = std::move(table);
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const NetnsInfoTable> latest_ = std::make_shared<const NetnsInfoTable>();
};

}  // namespace netif_rx
