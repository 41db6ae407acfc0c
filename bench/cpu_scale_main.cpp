// The exporter's cost at this machine's possible CPUs, as one table row
// (tests/vm/many-cpu-bench.sh runs it in guests of 2 and 128 possible CPUs):
//
//   netif_rx_cpu_scale EXPORTER CONFIG DEVICES [SETTLE_SECONDS [SCRAPES]]
//
// Starts EXPORTER with CONFIG (as root: it loads the probe), waits until it
// shows DEVICES devices and has run SETTLE_SECONDS (default 0), scrapes /metrics SCRAPES times
// (default 30; and through at least 10 polls) and prints
// "| possible CPUs | devices | series | poll ms | scrape ms | RSS MiB | peak RSS MiB |".
#include <cstdio>
#include <exception>
#include <string>

#include "cpu_scale.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: netif_rx_cpu_scale EXPORTER CONFIG DEVICES [SETTLE_SECONDS [SCRAPES]]\n");
    return 2;
  }
  try {
    const auto f = netif_rx::bench::measure_cpu_scale(argv[1], argv[2], std::stoi(argv[3]),
                                                      argc > 4 ? std::stoi(argv[4]) : 0,
                                                      argc > 5 ? std::stoi(argv[5]) : 30, 10);
    std::printf("| %u | %d | %d | %.2f (%d polls) | %.2f (%.2f .. %.2f) | %.1f | %.1f |\n",
                f.possible_cpus, f.devices, f.series, f.poll_ms, f.polls, f.scrape_ms.median,
                f.scrape_ms.p25, f.scrape_ms.p75, f.rss_mib, f.peak_rss_mib);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "netif_rx_cpu_scale: %s\n", e.what());
    return 1;
  }
}
