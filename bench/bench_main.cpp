// make bench: the probe's cost side by side with the bpftrace one-liner and
// an empty tp_btf program, in one run, and the exporter's own costs. Prints
// one table.
//
//   netif_rx_bench [--rounds=N] [--packets=N] [--kernel-rounds=N]
//                  [--scrapes=N] [Google Benchmark flags]
#include <bpf/bpf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_network.h"
#include "config/config.h"
#include "exporter_costs.h"
#include "kernel_programs.h"
#include "oneliner.h"
#include "probe/bpf_stats_data.h"
#include "probe/probe.h"
#include "render_bench.h"
#include "stats.h"
#include "util/unique_fd.h"

namespace netif_rx::bench {
namespace {

struct Options {
  int rounds = 101;        // A/B alternations of the wall-clock phase
  int packets = 4096;      // datagrams per burst
  int kernel_rounds = 31;  // rounds of the kernel-statistics phase
  int scrapes = 10000;
};

int flag(const std::string& arg, const char* name, int fallback) {
  const std::string prefix = std::string("--") + name + "=";
  return arg.rfind(prefix, 0) == 0 ? std::stoi(arg.substr(prefix.size())) : fallback;
}

// The default sampling duty cycle (bpf_stats.window / bpf_stats.period).
const double kDefaultDuty = static_cast<double>(BpfStatsConfig{}.window.count()) /
                            static_cast<double>(BpfStatsConfig{}.period.count());

std::string fmt(double value, int decimals = 1) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string spread(const Summary& s, int decimals = 1) {
  return fmt(s.p25, decimals) + " .. " + fmt(s.p75, decimals);
}

struct Row {
  std::string what;
  std::string median;
  std::string spread;
  std::string goal;
};

void print_table(const std::vector<Row>& rows) {
  std::size_t widths[4] = {0, 0, 0, 0};
  for (const auto& r : rows) {
    widths[0] = std::max(widths[0], r.what.size());
    widths[1] = std::max(widths[1], r.median.size());
    widths[2] = std::max(widths[2], r.spread.size());
    widths[3] = std::max(widths[3], r.goal.size());
  }
  const auto line = [&](const Row& r) {
    std::printf("| %-*s | %*s | %*s | %-*s |\n", static_cast<int>(widths[0]), r.what.c_str(),
                static_cast<int>(widths[1]), r.median.c_str(), static_cast<int>(widths[2]),
                r.spread.c_str(), static_cast<int>(widths[3]), r.goal.c_str());
  };
  line(rows[0]);
  std::printf("|%s|%s|%s|%s|\n", std::string(widths[0] + 2, '-').c_str(),
              std::string(widths[1] + 2, '-').c_str(), std::string(widths[2] + 2, '-').c_str(),
              std::string(widths[3] + 2, '-').c_str());
  for (std::size_t i = 1; i < rows.size(); ++i) line(rows[i]);
}

std::string verdict(bool ok) { return ok ? "met" : "MISSED"; }

bool sysctl_stats_on() {
  std::ifstream in("/proc/sys/kernel/bpf_stats_enabled");
  int value = 0;
  in >> value;
  return value == 1;
}

int run(int argc, char** argv) {
  Options options;
  std::vector<char*> benchmark_args{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--benchmark", 0) == 0) {
      benchmark_args.push_back(argv[i]);
      continue;
    }
    options.rounds = flag(arg, "rounds", options.rounds);
    options.packets = flag(arg, "packets", options.packets);
    options.kernel_rounds = flag(arg, "kernel-rounds", options.kernel_rounds);
    options.scrapes = flag(arg, "scrapes", options.scrapes);
  }
  if (::geteuid() != 0) throw std::runtime_error("the benchmark loads BPF: run it as root");
  if (sysctl_stats_on())
    std::fprintf(stderr,
                 "warning: kernel.bpf_stats_enabled=1: the statistics-off figures include the "
                 "cost of statistics\n");
  route_libbpf_logs();
  install_cleanup_on_signals();

  std::fprintf(stderr, "setting up the namespaces and the programs...\n");
  std::optional<BenchNetwork> network_holder;
  if (options.rounds > 0 || options.kernel_rounds > 0) network_holder.emplace();
  BenchNetwork& network = *network_holder;
  std::unique_ptr<BenchProgram> ours;
  std::unique_ptr<BenchProgram> floor;
  std::unique_ptr<BenchProgram> oneliner;
  if (network_holder) {
    ours = make_our_probe(network.receiver_netns_inum());
    floor = make_empty_floor();
    oneliner = make_oneliner();
  }

  // Phase 1: added wall-clock ns per packet, statistics off, interleaved.
  // Each round measures every configuration once, in a rotating order;
  // differences are paired within the round.
  enum Config { kBase, kOurs, kControl, kOneLiner, kOursStats, kFloor, kConfigs };
  const auto measure = [&](Config config) {
    BenchProgram* program = config == kOurs || config == kOursStats ? ours.get()
                            : config == kOneLiner                   ? oneliner.get()
                            : config == kFloor                      ? floor.get()
                                                                    : nullptr;
    UniqueFd stats;
    if (config == kOursStats) stats.reset(bpf_enable_stats(BPF_STATS_RUN_TIME));
    if (program) program->attach();
    network.burst(options.packets / 4);  // warm the caches with this configuration
    // The least of three bursts: an interrupt or another task on the CPU
    // only ever adds time, so the minimum is the least disturbed figure.
    double ns = network.burst(options.packets);
    for (int i = 0; i < 2; ++i) ns = std::min(ns, network.burst(options.packets));
    if (program) program->detach();
    return ns;
  };
  for (int i = 0; i < 20 && options.rounds > 0; ++i) network.burst(options.packets);  // warm up
  std::fprintf(stderr, "phase 1: %d rounds of %d configurations x %d packets...\n", options.rounds,
               static_cast<int>(kConfigs), options.packets);
  std::vector<double> added[kConfigs];
  std::vector<double> base_ns;
  std::vector<double> sampled;
  for (int round = 0; round < options.rounds; ++round) {
    double ns[kConfigs];
    for (int k = 0; k < kConfigs; ++k) {
      const auto config = static_cast<Config>((k + round) % kConfigs);
      ns[config] = measure(config);
    }
    base_ns.push_back(ns[kBase]);
    for (int c = 1; c < kConfigs; ++c) added[c].push_back(ns[c] - ns[kBase]);
    sampled.push_back((ns[kOurs] - ns[kBase]) + kDefaultDuty * (ns[kOursStats] - ns[kOurs]));
  }

  // Phase 2: kernel-measured ns per event, statistics on (held by the
  // benchmark), each program attached alone.
  std::fprintf(stderr, "phase 2: %d rounds of kernel statistics...\n", options.kernel_rounds);
  std::map<std::string, std::vector<double>> per_event;
  if (options.kernel_rounds > 0) {
    UniqueFd stats(bpf_enable_stats(BPF_STATS_RUN_TIME));
    if (!stats.valid()) throw std::runtime_error("bpf_enable_stats failed");
    for (int round = 0; round < options.kernel_rounds; ++round) {
      for (BenchProgram* program : {ours.get(), oneliner.get(), floor.get()}) {
        program->attach();
        network.burst(options.packets / 4);
        const RunCounters before = read_run_counters(program->program_fd());
        network.burst(options.packets);
        const RunCounters after = read_run_counters(program->program_fd());
        program->detach();
        // The same derivation as the dashboards: delta(run time) / delta(runs).
        BpfProgramStats first;
        first.run_time_ns = before.run_time_ns;
        first.run_count = before.run_count;
        BpfProgramStats second;
        second.run_time_ns = after.run_time_ns;
        second.run_count = after.run_count;
        if (after.run_count > before.run_count)
          per_event[program->name()].push_back(derive_cost(first, second, 1.0).ns_per_run);
      }
    }
  }
  ours.reset();
  floor.reset();
  oneliner.reset();

  // Phase 3: the exporter's own costs.
  std::fprintf(stderr, "phase 3: poll, render and scrape costs...\n");
  const auto polls = poll_times({10, 1000, 10000}, 31);
  int bench_argc = static_cast<int>(benchmark_args.size());
  const auto render = run_render_benchmarks(bench_argc, benchmark_args.data());
  const ScrapeCosts scrape = scrape_costs(options.scrapes);

  // The table.
  const Summary ev_ours = summarize(per_event["netif_rx_exporter probe"]);
  const Summary ev_one = summarize(per_event["bpftrace one-liner"]);
  const Summary ev_floor = summarize(per_event["empty tp_btf (floor)"]);
  const Summary add_ours = summarize(added[kOurs]);
  const Summary add_one = summarize(added[kOneLiner]);
  const Summary add_floor = summarize(added[kFloor]);
  const Summary add_always = summarize(added[kOursStats]);
  const Summary add_sampled = summarize(sampled);
  const Summary control = summarize(added[kControl]);
  const Summary base = summarize(base_ns);
  // The statistics' own share in the default mode: duty x (always - off).
  std::vector<double> stats_increment;
  for (std::size_t i = 0; i < added[kOurs].size(); ++i)
    stats_increment.push_back(kDefaultDuty * (added[kOursStats][i] - added[kOurs][i]));
  const Summary default_stats = summarize(stats_increment);

  const double event_vs_one = ev_ours.median / ev_one.median;
  const double event_vs_floor = ev_ours.median / ev_floor.median;
  const double packet_vs_one = add_ours.median / add_one.median;

  std::vector<Row> rows;
  rows.push_back({"measurement", "median", "p25 .. p75", "goal (ratio side by side)"});
  rows.push_back(
      {"(1) kernel ns/event: netif_rx_exporter probe", fmt(ev_ours.median), spread(ev_ours), ""});
  rows.push_back(
      {"(1) kernel ns/event: bpftrace one-liner", fmt(ev_one.median), spread(ev_one), ""});
  rows.push_back(
      {"(1) kernel ns/event: empty tp_btf (floor)", fmt(ev_floor.median), spread(ev_floor), ""});
  rows.push_back({"    probe / one-liner", fmt(event_vs_one, 2), "",
                  "<= 0.50: " + verdict(event_vs_one <= 0.5)});
  rows.push_back({"    probe / floor", fmt(event_vs_floor, 2), "",
                  "<= 2.0 (aim 1.6): " + verdict(event_vs_floor <= 2.0)});
  rows.push_back({"(2) wall ns/packet, no probe (baseline)", fmt(base.median), spread(base), ""});
  rows.push_back({"(2) added ns/packet: control (no probe vs no probe)", fmt(control.median),
                  spread(control), "~0"});
  rows.push_back(
      {"(2) added ns/packet: netif_rx_exporter probe", fmt(add_ours.median), spread(add_ours), ""});
  rows.push_back(
      {"(2) added ns/packet: bpftrace one-liner", fmt(add_one.median), spread(add_one), ""});
  rows.push_back(
      {"(2) added ns/packet: empty tp_btf (floor)", fmt(add_floor.median), spread(add_floor), ""});
  rows.push_back({"    probe / one-liner", fmt(packet_vs_one, 2), "",
                  "<= 0.35 (aim 0.25): " + verdict(packet_vs_one <= 0.35)});
  rows.push_back(
      {"(3) added ns/packet: bpf_stats.mode off", fmt(add_ours.median), spread(add_ours), ""});
  rows.push_back({"(3) added ns/packet: bpf_stats.mode sampled (" +
                      format_duration(BpfStatsConfig{}.window) + " every " +
                      format_duration(BpfStatsConfig{}.period) + ")",
                  fmt(add_sampled.median), spread(add_sampled), ""});
  rows.push_back({"(3) added ns/packet: bpf_stats.mode always", fmt(add_always.median),
                  spread(add_always), ""});
  rows.push_back({"    sampled - off (statistics' share)", fmt(default_stats.median, 2),
                  spread(default_stats, 2), "<= 5: " + verdict(default_stats.median <= 5)});
  for (const auto& [devices, summary] : polls) {
    const bool goal = devices == 1000;
    rows.push_back({"(4) poll ms, " + std::to_string(devices) + " devices (synthetic)",
                    fmt(summary.median, 3), spread(summary, 3),
                    goal ? "<= 2 ms: " + verdict(summary.median <= 2) : ""});
  }
  for (const auto& [series, ms] : render) {
    const double limit = series == 1000 ? 2 : 150;
    rows.push_back({"(4) /metrics render+serialize ms, " + std::to_string(series) + " series",
                    fmt(ms, 3), "", "<= " + fmt(limit, 0) + " ms: " + verdict(ms <= limit)});
  }
  rows.push_back({"(4) /metrics over HTTP ms, real exporter (" + std::to_string(scrape.series) +
                      " device x CPU series)",
                  fmt(scrape.latency_ms.median, 3), spread(scrape.latency_ms, 3), ""});
  rows.push_back({"(4) RSS MiB after " + std::to_string(options.scrapes) + " scrapes",
                  fmt(scrape.rss_mib, 1), "", "<= 10 MiB: " + verdict(scrape.rss_mib <= 10)});

  std::printf(
      "\nnetif_rx_exporter benchmark: %d A/B rounds, each configuration the least of 3 bursts of "
      "%d UDP packets (16-byte payload) over a veth pair; %d kernel-statistics rounds\n\n",
      options.rounds, options.packets, options.kernel_rounds);
  print_table(rows);
  return 0;
}

}  // namespace
}  // namespace netif_rx::bench

int main(int argc, char** argv) {
  try {
    return netif_rx::bench::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "netif_rx_bench: %s\n", e.what());
    return 1;
  }
}
