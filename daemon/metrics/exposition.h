// Pure translation of a snapshot into Prometheus metric families.
#pragma once

#include <prometheus/metric_family.h>

#include <vector>

#include "pipeline/snapshot.h"

namespace netif_rx {

struct RenderOptions {
  bool per_cpu = true;       // false: drop the cpu label and sum over CPUs
  bool netns_label = false;  // true when every namespace is watched
};

// netif_rx_packets_total, netif_rx_skbs_total, netif_rx_bytes_total,
// netif_rx_untracked_packets_total, netif_rx_removed_packets_total,
// netif_rx_counted_packets_total, netif_rx_gso_fallbacks_total.
std::vector<prometheus::MetricFamily> render_snapshot(const Snapshot& snapshot,
                                                      const RenderOptions& options);

}  // namespace netif_rx
