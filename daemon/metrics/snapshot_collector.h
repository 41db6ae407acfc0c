// The prometheus-cpp Collectable that turns the latest snapshot into metric
// families at scrape time: no syscalls, no waiting on the poller.
#pragma once

#include <prometheus/collectable.h>

#include <mutex>

#include "metrics/bpf_exposition.h"
#include "metrics/exposition.h"
#include "metrics/netns_info_exposition.h"
#include "pipeline/snapshot_store.h"

namespace netif_rx {

class SnapshotCollector final : public prometheus::Collectable {
 public:
  // `owners` (optional, outliving the collector): the attribution's tables,
  // rendered as netif_rx_netns_info beside the data.
  SnapshotCollector(const SnapshotStore& store, RenderOptions options,
                    const NetnsInfoStore* owners = nullptr)
      : store_(store), owners_(owners), options_(options) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    const auto snapshot = store_.latest();
    const auto owners = owners_ ? owners_->latest() : nullptr;
    const RenderOptions render = options();
    auto families = render_snapshot(*snapshot, render, owners.get());
    for (auto& family : render_bpf_stats(snapshot->bpf)) families.push_back(std::move(family));
    if (owners && render.netns_label) {
      for (auto& family : render_netns_info(*snapshot, *owners)) {
        families.push_back(std::move(family));
      }
    }
    return families;
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
