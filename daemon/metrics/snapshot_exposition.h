// Everything a scrape serves from one snapshot, in order: the data families,
// the probe's own cost (netif_rx_bpf_*), and with the netns label and an
// attribution table, netif_rx_netns_info and the attribution's own counts.
#pragma once

#include <prometheus/metric_family.h>

#include <string>
#include <vector>

#include "metrics/exposition.h"

namespace netif_rx {

// As prometheus-cpp families (SnapshotCollector::Collect).
std::vector<prometheus::MetricFamily> snapshot_families(const Snapshot& snapshot,
                                                        const RenderOptions& options,
                                                        const NetnsInfoTable* owners);

// The same, as text appended to `out` (what /metrics serves): the large
// families written straight from the snapshot, the small ones serialized by
// prometheus-cpp.
void write_snapshot_exposition(std::string& out, const Snapshot& snapshot,
                               const RenderOptions& options, const NetnsInfoTable* owners);

}  // namespace netif_rx
