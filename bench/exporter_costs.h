// The exporter's own costs: poll time over a map filled from user space, and
// the real binary's resident memory after many scrapes.
#pragma once

#include <map>

#include "stats.h"

namespace netif_rx::bench {

// Loads the real probe (map sized 16384), inserts N synthetic devices from
// user space (host-namespace keys at ifindexes no device has, named by a
// synthetic link view), and times Poller::poll_once: milliseconds, by device
// count.
std::map<int, Summary> poll_times(const std::vector<int>& device_counts, int repetitions);

struct ScrapeCosts {
  double rss_mib = 0;       // VmRSS after the scrapes
  Summary latency_ms;       // per /metrics request over HTTP
  Summary gzip_latency_ms;  // the same with Accept-Encoding: gzip, after the RSS was read
  int series = 0;           // lines of netif_rx_packets_total in the last scrape
};
// Starts the real exporter (default configuration: bpf_stats sampled) and
// scrapes /metrics `scrapes` times, then `scrapes` / 10 times with gzip.
ScrapeCosts scrape_costs(int scrapes);

}  // namespace netif_rx::bench
