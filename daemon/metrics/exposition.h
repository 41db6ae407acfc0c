// Pure translation of a snapshot into Prometheus metric families: what
// SnapshotCollector::Collect() returns, and the reference that the text
// written straight from a snapshot (snapshot_text.h) is tested against.
#pragma once

#include <prometheus/metric_family.h>

#include <vector>

#include "owners/netns_info_table.h"
#include "pipeline/snapshot.h"

namespace netif_rx {

struct RenderOptions {
  // The totals families (untracked, removed, counted, fallbacks) by CPU
  // (per_cpu.devices: all); false: summed, without the cpu label. Devices
  // are by CPU as their snapshot says (DeviceSeries::per_cpu_detail).
  bool totals_per_cpu = false;
  bool netns_label = false;  // true when every namespace is watched
  // With netns_label: copy the owner's namespace and pod labels (from the
  // table given to render_snapshot) onto the device families.
  bool owner_labels = false;
};

// netif_rx_packets_total, netif_rx_skbs_total, netif_rx_bytes_total,
// netif_rx_busiest_cpu_packets_total, netif_rx_untracked_packets_total,
// netif_rx_removed_packets_total, netif_rx_counted_packets_total, netif_rx_gso_fallbacks_total,
// netif_rx_exporter_cpus, netif_rx_exporter_series, netif_rx_exporter_folded_devices.
// `owners`: the attribution's table, for options.owner_labels (may be null).
std::vector<prometheus::MetricFamily> render_snapshot(const Snapshot& snapshot,
                                                      const RenderOptions& options,
                                                      const NetnsInfoTable* owners = nullptr);

}  // namespace netif_rx
