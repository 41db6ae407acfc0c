// The prometheus-cpp Collectable that turns the latest snapshot into metric
// families at scrape time: no syscalls, no waiting on the poller.
#pragma once

#include <prometheus/collectable.h>

#include <mutex>

#include "metrics/bpf_exposition.h"
#include "metrics/exposition.h"
#include "pipeline/snapshot_store.h"

namespace netif_rx {

class SnapshotCollector final : public prometheus::Collectable {
 public:
  SnapshotCollector(const SnapshotStore& store, RenderOptions options)
      : store_(store), options_(options) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    const auto snapshot = store_.latest();
    auto families = render_snapshot(*snapshot, options());
    for (auto& family : render_bpf_stats(snapshot->bpf)) families.push_back(std::move(family));
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
  mutable std::mutex mutex_;
  RenderOptions options_;
};

}  // namespace netif_rx
