// /metrics on the pure path (snapshot -> exposition text, as the handler
// writes it), with Google Benchmark, on a synthetic snapshot of N device x
// CPU series.
#pragma once

#include <map>
#include <string>

#include "pipeline/snapshot.h"

namespace netif_rx::bench {

// `series` device x CPU pairs over 2 CPUs (each pair is a packets and a
// bytes line).
Snapshot synthetic_snapshot(int series);

// Median wall-clock milliseconds of render + serialize, by series count:
// the text as is, and gzipped as a client that accepts gzip gets it.
struct RenderTimes {
  std::map<int, double> plain;
  std::map<int, double> gzip;
};
RenderTimes run_render_benchmarks(int argc, char** argv);

}  // namespace netif_rx::bench
