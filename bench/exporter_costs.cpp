#include "exporter_costs.h"

#include <bpf/bpf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "bpf_stats/bpf_stats.h"
#include "devices/link_table.h"
#include "devices/netns.h"
#include "http_client.h"
#include "metrics/self_metrics.h"
#include "pipeline/poller.h"
#include "pipeline/snapshot_store.h"
#include "probe/map_reader.h"
#include "probe/probe.h"
#include "probe/probe_maps.h"
#include "util/unique_fd.h"

namespace netif_rx::bench {
namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// Poll times of `count` synthetic devices in a probe of `max_devices`.
Summary poll_time(int count, std::uint32_t max_devices, int repetitions) {
  const auto host = current_netns_inum();
  ProbeOptions options;
  options.host_netns_inum = host.value_or(0);
  options.max_devices = max_devices;
  auto probe = Probe::load(options);

  const unsigned cpus = probe->possible_cpus();
  std::vector<netif_rx_counters> value(cpus, netif_rx_counters{1000, 0, 100000});
  SnapshotStore store;
  SelfMetrics metrics;
  auto reader = std::make_shared<BpfStatsReader>(
      probe->program_fd(), probe->program_name(), probe->attach_mode(),
      std::vector<BpfMapHandle>{{"device_counters", probe->device_counters_fd()},
                                {"device_names", probe->device_names_fd()},
                                {"probe_totals", probe->probe_totals_fd()}},
      nullptr);
  PollerOptions poller_options;
  poller_options.host_netns_inum = options.host_netns_inum;
  poller_options.max_devices = options.max_devices;
  // The synthetic devices live in the link view the poller names them from,
  // published as the link watcher does: one immutable view until a link
  // changes.
  LinkView links;
  for (int i = 0; i < count; ++i) {
    // Host-namespace keys at ifindexes no real device has, named by the
    // synthetic link view, so no entry is deleted.
    const auto ifindex = static_cast<std::uint32_t>(1000000 + i);
    links[ifindex] = LinkInfo{"synth" + std::to_string(i), static_cast<std::uint64_t>(i + 1)};
    const netif_rx_device_key key{options.host_netns_inum, ifindex, 0};
    if (bpf_map_update_elem(probe->device_counters_fd(), &key, value.data(), BPF_ANY) != 0)
      throw std::runtime_error("filling the map failed");
  }
  auto published = std::make_shared<const LinkView>(std::move(links));
  Poller poller(
      MapReader(maps_of(*probe), cpus), poller_options, [published] { return published; }, store,
      metrics);
  poller.set_bpf_stats_source(
      [reader](std::size_t n, const HashMapEntries& others) { return reader->read(n, others); });

  std::vector<double> times;
  poller.poll_once();  // warm
  for (int i = 0; i < repetitions; ++i) {
    const auto start = std::chrono::steady_clock::now();
    poller.poll_once();
    times.push_back(ms_since(start));
  }
  return summarize(times);
}

}  // namespace

std::map<int, Summary> poll_times(const std::vector<int>& device_counts, int repetitions) {
  std::map<int, Summary> out;
  for (const int count : device_counts) {
    // The default map up to 16,384 devices, then the next power of two: a
    // map sized for its devices, as max_devices would be set.
    std::uint32_t max_devices = 16384;
    while (max_devices < static_cast<std::uint32_t>(count)) max_devices *= 2;
    out[count] = poll_time(count, max_devices, repetitions);
  }
  return out;
}

ScrapeCosts scrape_costs(int scrapes) {
  const int port = free_port();
  const std::string listen = "--web.listen-address=127.0.0.1:" + std::to_string(port);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    ::execl(NETIF_RX_EXPORTER_BINARY, NETIF_RX_EXPORTER_BINARY, listen.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ScrapeCosts costs;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (http_get(port, "/-/ready").empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // Loopback traffic (these requests) and one poll, so that the device
  // families are not empty.
  for (int i = 0; i < 10; ++i) http_get(port, "/metrics");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  std::vector<double> latencies;
  std::string body;
  for (int i = 0; i < scrapes; ++i) {
    const auto start = std::chrono::steady_clock::now();
    body = http_get(port, "/metrics");
    latencies.push_back(ms_since(start));
  }
  std::istringstream lines(body);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("netif_rx_packets_total{", 0) == 0) ++costs.series;
  }
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) costs.rss_mib = std::stod(line.substr(6)) / 1024.0;
  }
  costs.latency_ms = summarize(latencies);
  std::vector<double> gzip_latencies;
  std::string compressed;
  for (int i = 0; i < std::max(scrapes / 10, 1); ++i) {
    const auto start = std::chrono::steady_clock::now();
    compressed = http_get(port, "/metrics", "Accept-Encoding: gzip\r\n");
    gzip_latencies.push_back(ms_since(start));
  }
  costs.gzip_latency_ms = summarize(gzip_latencies);
  ::kill(pid, SIGTERM);
  int wstatus = 0;
  ::waitpid(pid, &wstatus, 0);
  if (body.empty()) throw std::runtime_error("the exporter did not answer /metrics");
  if (compressed.rfind("\x1f\x8b", 0) != 0)
    throw std::runtime_error("the exporter did not answer /metrics with gzip when asked");
  return costs;
}

}  // namespace netif_rx::bench
