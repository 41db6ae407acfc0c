// The data families written as exposition text straight from a snapshot:
// the same text as serializing render_snapshot's families with
// prometheus-cpp (exposition.h), without building them. A scrape of 100,000
// series writes one string instead of allocating some 10 objects a series.
#pragma once

#include <string>

#include "metrics/exposition.h"

namespace netif_rx {

// Appends netif_rx_packets_total ... netif_rx_exporter_folded_devices to
// `out`, in render_snapshot's order, labels and values: devices of the per-CPU
// class by CPU (the CPUs they counted on), the others summed. Counters are written as exact
// integers (prometheus-cpp converts to a double first: exact only up to 2^53).
void write_snapshot_text(std::string& out, const Snapshot& snapshot, const RenderOptions& options,
                         const NetnsInfoTable* owners = nullptr);

}  // namespace netif_rx
