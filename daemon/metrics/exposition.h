// Pure translation of a snapshot into Prometheus metric families.
#pragma once

#include <prometheus/metric_family.h>

#include <vector>

#include "owners/netns_info_table.h"
#include "pipeline/snapshot.h"

namespace netif_rx {

struct RenderOptions {
  bool per_cpu = true;       // false: drop the cpu label and sum over CPUs
  bool netns_label = false;  // true when every namespace is watched
  // With netns_label: copy the owner's namespace and pod labels (from the
  // table given to render_snapshot) onto the device families.
  bool owner_labels = false;
};

// netif_rx_packets_total, netif_rx_skbs_total, netif_rx_bytes_total,
// netif_rx_untracked_packets_total, netif_rx_removed_packets_total,
// netif_rx_counted_packets_total, netif_rx_gso_fallbacks_total.
// `owners`: the attribution's table, for options.owner_labels (may be null).
std::vector<prometheus::MetricFamily> render_snapshot(const Snapshot& snapshot,
                                                      const RenderOptions& options,
                                                      const NetnsInfoTable* owners = nullptr);

}  // namespace netif_rx
