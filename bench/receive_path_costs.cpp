#include "receive_path_costs.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "drops/drop_probe.h"
#include "napi/napi_probe.h"
#include "netif_rx.h"
#include "util/unique_fd.h"

namespace netif_rx::bench {
namespace {

UniqueFd statistics_on() {
  UniqueFd stats(bpf_enable_stats(BPF_STATS_RUN_TIME));
  if (!stats.valid()) throw std::runtime_error("bpf_enable_stats failed");
  return stats;
}

// The sum over CPUs of slot `slot` of a per-CPU array of u64.
std::uint64_t per_cpu_sum(int map_fd, std::uint32_t slot, unsigned cpus) {
  std::vector<std::uint64_t> values(cpus);
  if (bpf_map_lookup_elem(map_fd, &slot, values.data()) != 0)
    throw std::runtime_error("reading a per-CPU slot failed");
  std::uint64_t total = 0;
  for (std::uint64_t v : values) total += v;
  return total;
}

std::unique_ptr<DropProbe> load_drop_counter(std::uint32_t netns_inum, std::string& why) {
  DropProbeOptions options;
  options.host_netns_inum = netns_inum;
  return DropProbe::load(options, why);
}

double per(std::uint64_t after, std::uint64_t before, double count) {
  return count > 0 ? static_cast<double>(after - before) / count : 0;
}

struct NapiTotals {
  std::uint64_t polls = 0;  // the counted device's polls
  std::uint64_t packets = 0;
  std::uint64_t exhausted = 0;
  std::uint64_t backlog_packets = 0;  // the per-CPU backlogs' (the acknowledgements')
};

NapiTotals read_napi_totals(const NapiProbe& napi) {
  const unsigned cpus = napi.possible_cpus();
  std::vector<netif_rx_napi_counters> values(cpus);
  NapiTotals out;
  netif_rx_device_key key{};
  netif_rx_device_key next{};
  bool first = true;
  while (bpf_map_get_next_key(napi.napi_counters_fd(), first ? nullptr : &key, &next) == 0) {
    first = false;
    key = next;
    if (bpf_map_lookup_elem(napi.napi_counters_fd(), &key, values.data()) != 0) continue;
    for (const auto& v : values) {
      out.polls += v.polls;
      out.packets += v.packets;
      out.exhausted += v.exhausted;
    }
  }
  const std::uint32_t slot = NETIF_RX_NAPI_SLOT_BACKLOG;
  if (bpf_map_lookup_elem(napi.napi_totals_fd(), &slot, values.data()) == 0)
    for (const auto& v : values) out.backlog_packets += v.packets;
  return out;
}

constexpr std::uint64_t kNapiBytes = 8ULL << 20;

}  // namespace

DropStormCosts measure_drop_storm(BenchNetwork& network, BenchProgram& probe, BenchProgram& floor,
                                  int rounds) {
  DropStormCosts out;
  if (rounds <= 0) return out;
  std::fprintf(stderr, "phase 2d: %d rounds of a drop storm (%d drops/s, %d per measurement)...\n",
               rounds, kDropStormRate, kDropStormPackets);
  const std::uint32_t inum = network.receiver_netns_inum();
  std::string why;
  if (!load_drop_counter(inum, why)) {
    out.skipped = why;
    std::fprintf(stderr, "phase 2d skipped: the drop counter did not load: %s\n", why.c_str());
    return out;
  }
  network.flood_closed_port(kDropStormPackets / 4, kDropStormRate);  // warm up
  for (int round = 0; round < rounds; ++round) {
    // Statistics off: the storm without the drop counter and with it, in an
    // order alternating between rounds.
    double without = 0;
    double with = 0;
    for (int step = 0; step < 2; ++step) {
      if ((step + round) % 2 == 0) {
        without = network.flood_closed_port(kDropStormPackets, kDropStormRate);
        continue;
      }
      const auto counter = load_drop_counter(inum, why);
      if (!counter) throw std::runtime_error("the drop counter did not load again: " + why);
      with = network.flood_closed_port(kDropStormPackets, kDropStormRate);
    }
    out.drop_wall_ns.push_back(without);
    out.counter_added_wall_ns.push_back(with - without);

    // Statistics on: the drop counter, the probe and the floor together.
    const auto counter = load_drop_counter(inum, why);
    if (!counter) throw std::runtime_error("the drop counter did not load again: " + why);
    const UniqueFd stats = statistics_on();
    if (round % 2 == 0) {
      probe.attach();
      floor.attach();
    } else {
      floor.attach();
      probe.attach();
    }
    network.flood_closed_port(kDropStormPackets / 10, kDropStormRate);
    const unsigned cpus = counter->possible_cpus();
    const std::uint64_t drops_before =
        per_cpu_sum(counter->drop_totals_fd(), NETIF_RX_DROP_SLOT_COUNTED, cpus);
    const RunCounters counter_before = read_run_counters(counter->program_fd());
    const RunCounters probe_before = read_run_counters(probe.program_fd());
    const RunCounters floor_before = read_run_counters(floor.program_fd());
    timespec start{};
    ::clock_gettime(CLOCK_MONOTONIC, &start);
    network.flood_closed_port(kDropStormPackets, kDropStormRate);
    timespec end{};
    ::clock_gettime(CLOCK_MONOTONIC, &end);
    const RunCounters counter_after = read_run_counters(counter->program_fd());
    const RunCounters probe_after = read_run_counters(probe.program_fd());
    const RunCounters floor_after = read_run_counters(floor.program_fd());
    const std::uint64_t drops_after =
        per_cpu_sum(counter->drop_totals_fd(), NETIF_RX_DROP_SLOT_COUNTED, cpus);
    probe.detach();
    floor.detach();
    const auto drops = static_cast<double>(drops_after - drops_before);
    if (drops <= 0) throw std::runtime_error("the drop storm counted no drop");
    const double seconds = static_cast<double>(end.tv_sec - start.tv_sec) +
                           static_cast<double>(end.tv_nsec - start.tv_nsec) / 1e9;
    out.counter_ns_per_drop.push_back(
        per(counter_after.run_time_ns, counter_before.run_time_ns, drops));
    out.probe_ns_per_event.push_back(
        per(probe_after.run_time_ns, probe_before.run_time_ns,
            static_cast<double>(probe_after.run_count - probe_before.run_count)));
    out.floor_ns_per_event.push_back(
        per(floor_after.run_time_ns, floor_before.run_time_ns,
            static_cast<double>(floor_after.run_count - floor_before.run_count)));
    out.drops_per_second.push_back(drops / seconds);
  }
  return out;
}

NapiCosts measure_napi_costs(BenchNetwork& network, BenchProgram& probe, BenchProgram& floor,
                             int rounds) {
  NapiCosts out;
  if (rounds <= 0) return out;
  std::fprintf(stderr, "phase 2e: %d rounds of bulk TCP through GRO with the NAPI counter...\n",
               rounds);
  NapiProbeOptions options;
  options.host_netns_inum = network.receiver_netns_inum();
  std::string why;
  const auto napi = NapiProbe::load(options, why);
  if (!napi) {
    out.skipped = why;
    std::fprintf(stderr, "phase 2e skipped: the NAPI counter did not load: %s\n", why.c_str());
    return out;
  }
  const UniqueFd stats = statistics_on();
  network.bulk_tcp(kNapiBytes / 4);  // warm up
  for (int round = 0; round < rounds; ++round) {
    if (round % 2 == 0) {
      probe.attach();
      floor.attach();
    } else {
      floor.attach();
      probe.attach();
    }
    const NapiTotals totals_before = read_napi_totals(*napi);
    const RunCounters napi_before = read_run_counters(napi->program_fd());
    const RunCounters probe_before = read_run_counters(probe.program_fd());
    const RunCounters floor_before = read_run_counters(floor.program_fd());
    network.bulk_tcp(kNapiBytes);
    const RunCounters napi_after = read_run_counters(napi->program_fd());
    const RunCounters probe_after = read_run_counters(probe.program_fd());
    const RunCounters floor_after = read_run_counters(floor.program_fd());
    const NapiTotals totals_after = read_napi_totals(*napi);
    probe.detach();
    floor.detach();
    const auto polls = static_cast<double>(totals_after.polls - totals_before.polls);
    const auto packets = static_cast<double>(totals_after.packets - totals_before.packets);
    const auto all_packets =
        packets + static_cast<double>(totals_after.backlog_packets - totals_before.backlog_packets);
    if (polls <= 0 || packets <= 0) throw std::runtime_error("the NAPI counter counted no poll");
    out.counter_ns_per_poll.push_back(
        per(napi_after.run_time_ns, napi_before.run_time_ns,
            static_cast<double>(napi_after.run_count - napi_before.run_count)));
    out.counter_ns_per_packet.push_back(
        per(napi_after.run_time_ns, napi_before.run_time_ns, all_packets));
    out.packets_per_poll.push_back(packets / polls);
    out.exhausted_share.push_back(
        static_cast<double>(totals_after.exhausted - totals_before.exhausted) / polls);
    out.probe_ns_per_event.push_back(
        per(probe_after.run_time_ns, probe_before.run_time_ns,
            static_cast<double>(probe_after.run_count - probe_before.run_count)));
    out.floor_ns_per_event.push_back(
        per(floor_after.run_time_ns, floor_before.run_time_ns,
            static_cast<double>(floor_after.run_count - floor_before.run_count)));
  }
  return out;
}

}  // namespace netif_rx::bench
