// Pure translation of the probe's own cost (the snapshot's bpf part) into
// the netif_rx_bpf_* metric families.
#pragma once

#include <prometheus/metric_family.h>

#include <vector>

#include "bpf_stats/bpf_stats_data.h"

namespace netif_rx {

// Nothing before the first poll; then netif_rx_bpf_run_time_seconds_total,
// _run_count_total, _recursion_misses_total, _stats_enabled, _program_info,
// _map_entries and _map_max_entries.
std::vector<prometheus::MetricFamily> render_bpf_stats(const BpfStatsSnapshot& stats);

}  // namespace netif_rx
