// The JSON view of a rate table: the same data as the bars, for scripts. Pure.
#pragma once

#include <string>

#include "top/top_rate_table.h"

namespace netif_rx {

// One JSON document on one line, ending in '\n':
// {"source":..,"span_seconds":..,"per_cpu":true,"devices":[{"device":..,
//  "netns":.. (when labelled),"packets":..,"bytes":..,"packets_per_second":..,
//  "bytes_per_second":..,"cpus":[{"cpu":0,"packets":..,"bytes":..,
//  "packets_per_second":..,"bytes_per_second":..,"packets_total":..,
//  "bytes_total":..}]}]}
// Devices in the table's order (busiest first), every CPU of each. Without
// per-CPU data, "per_cpu" is false and each device has one element with
// "cpu": null. A device that dropped has "drops" (counts by reason) and
// "drops_per_second"; with --device, "device" names it and each of its
// devices has "queues" (its queue -> CPU matrix: "cpus", and "rows" of
// "queue", "packets" and "packets_per_second" by those CPUs) when the
// source has queues. "drops_absent" and "queues_absent" say why a source
// has none.
std::string render_json(const RateTable& table, const std::string& source);

// `text` as a JSON string literal, quotes included.
std::string json_string(const std::string& text);

}  // namespace netif_rx
