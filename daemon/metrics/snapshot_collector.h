// The prometheus-cpp Collectable that turns the latest snapshot into metric
// families at scrape time: no syscalls, no waiting on the poller. /metrics
// takes its text from write_text, written straight from the snapshot.
#pragma once

#include <prometheus/collectable.h>

#include <mutex>

#include "metrics/snapshot_exposition.h"
#include "metrics/text_exposition.h"
#include "pipeline/snapshot_store.h"

namespace netif_rx {

class SnapshotCollector final : public prometheus::Collectable, public TextExposition {
 public:
  // `owners` (optional, outliving the collector): the attribution's tables,
  // rendered as netif_rx_netns_info beside the data.
  SnapshotCollector(const SnapshotStore& store, RenderOptions options,
                    const NetnsInfoStore* owners = nullptr)
      : store_(store), owners_(owners), options_(options) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    const auto snapshot = store_.latest();
    const auto owners = owners_ ? owners_->latest() : nullptr;
    return snapshot_families(*snapshot, options(), owners.get());
  }

  void write_text(std::string& out) const override {
    const auto snapshot = store_.latest();
    const auto owners = owners_ ? owners_->latest() : nullptr;
    write_snapshot_exposition(out, *snapshot, options(), owners.get());
  }

  // Configuration reload: applies from the next scrape on.
  void set_options(RenderOptions options) {
    std::lock_guard lock(mutex_);
    options_ = options;
  }
  RenderOptions options() const {
    std::lock_guard lock(mutex_);
    return options_;
  }

 private:
  const SnapshotStore& store_;
  const NetnsInfoStore* owners_;
  mutable std::mutex mutex_;
  RenderOptions options_;
};

}  // namespace netif_rx
