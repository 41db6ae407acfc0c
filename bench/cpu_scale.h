// The exporter's cost as the possible CPUs grow (issue 34, item 5): the real
// exporter, run with a configuration file on the devices of this machine,
// its poll time (its own netif_rx_exporter_poll_duration_seconds), the time
// of a /metrics scrape (render and HTTP over loopback) and its resident
// memory. Per-CPU maps hold a value per possible CPU, so a poll reads
// devices x possible CPUs values.
#pragma once

#include <string>

#include "stats.h"

namespace netif_rx::bench {

struct CpuScaleFigures {
  unsigned possible_cpus = 0;
  int devices = 0;          // devices with a netif_rx_packets_total series
  int series = 0;           // netif_rx_exporter_series
  double poll_ms = 0;       // mean over the polls during the scrapes
  int polls = 0;            // how many
  Summary scrape_ms;        // per /metrics request
  std::size_t bytes = 0;    // of the last /metrics
  double rss_mib = 0;       // VmRSS after the scrapes
  double peak_rss_mib = 0;  // VmHWM
};

// Starts `exporter` with `config`, waits until it shows at least `devices`
// devices and has run `settle_seconds`, scrapes /metrics `scrapes` times (and
// for at least `min_polls` polls), stops it. Throws std::runtime_error when
// it does not get there.
CpuScaleFigures measure_cpu_scale(const std::string& exporter, const std::string& config,
                                  int devices, int settle_seconds, int scrapes, int min_polls);

}  // namespace netif_rx::bench
