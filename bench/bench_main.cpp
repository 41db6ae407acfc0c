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

Options parse_options(int argc, char** argv, std::vector<char*>& benchmark_args) {
  Options options;
  benchmark_args.push_back(argv[0]);
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
  return options;
}

// The three programs compared, each attached only while it is measured.
struct Programs {
  std::unique_ptr<BenchProgram> ours;
  std::unique_ptr<BenchProgram> floor;
  std::unique_ptr<BenchProgram> oneliner;
};

enum Config { kBase, kOurs, kControl, kOneLiner, kOursStats, kFloor, kConfigs };

// Phase 1: added wall-clock ns per packet, by configuration.
struct WallClock {
  std::vector<double> added[kConfigs];  // ns per packet over the round's baseline
  std::vector<double> base_ns;
  std::vector<double> sampled;  // ours with statistics sampled at the default duty
};

// One configuration's ns per packet: the least of three bursts (an interrupt
// or another task on the CPU only ever adds time).
double measure(BenchNetwork& network, Programs& programs, Config config, int packets) {
  BenchProgram* program = config == kOurs || config == kOursStats ? programs.ours.get()
                          : config == kOneLiner                   ? programs.oneliner.get()
                          : config == kFloor                      ? programs.floor.get()
                                                                  : nullptr;
  UniqueFd stats;
  if (config == kOursStats) stats.reset(bpf_enable_stats(BPF_STATS_RUN_TIME));
  if (program) program->attach();
  network.burst(packets / 4);  // warm the caches with this configuration
  double ns = network.burst(packets);
  for (int i = 0; i < 2; ++i) ns = std::min(ns, network.burst(packets));
  if (program) program->detach();
  return ns;
}

// Statistics off, interleaved: each round measures every configuration once,
// in a rotating order; differences are paired within the round.
WallClock measure_wall_clock(BenchNetwork& network, Programs& programs, const Options& options) {
  WallClock out;
  for (int i = 0; i < 20; ++i) network.burst(options.packets);  // warm up
  std::fprintf(stderr, "phase 1: %d rounds of %d configurations x %d packets...\n", options.rounds,
               static_cast<int>(kConfigs), options.packets);
  for (int round = 0; round < options.rounds; ++round) {
    double ns[kConfigs];
    for (int k = 0; k < kConfigs; ++k) {
      const auto config = static_cast<Config>((k + round) % kConfigs);
      ns[config] = measure(network, programs, config, options.packets);
    }
    out.base_ns.push_back(ns[kBase]);
    for (int c = 1; c < kConfigs; ++c) out.added[c].push_back(ns[c] - ns[kBase]);
    out.sampled.push_back((ns[kOurs] - ns[kBase]) + kDefaultDuty * (ns[kOursStats] - ns[kOurs]));
  }
  return out;
}

// Phase 2: kernel-measured ns per event, statistics on (held by the
// benchmark), each program attached alone.
std::map<std::string, std::vector<double>> measure_kernel_cost(BenchNetwork& network,
                                                               Programs& programs,
                                                               const Options& options) {
  std::fprintf(stderr, "phase 2: %d rounds of kernel statistics...\n", options.kernel_rounds);
  std::map<std::string, std::vector<double>> per_event;
  UniqueFd stats(bpf_enable_stats(BPF_STATS_RUN_TIME));
  if (!stats.valid()) throw std::runtime_error("bpf_enable_stats failed");
  for (int round = 0; round < options.kernel_rounds; ++round) {
    for (BenchProgram* program :
         {programs.ours.get(), programs.oneliner.get(), programs.floor.get()}) {
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
  return per_event;
}

// Rows (1): kernel ns per event, side by side.
void add_kernel_rows(std::vector<Row>& rows, std::map<std::string, std::vector<double>> per_event) {
  const Summary ours = summarize(per_event["netif_rx_exporter probe"]);
  const Summary one = summarize(per_event["bpftrace one-liner"]);
  const Summary floor = summarize(per_event["empty tp_btf (floor)"]);
  const double vs_one = ours.median / one.median;
  const double vs_floor = ours.median / floor.median;
  rows.push_back(
      {"(1) kernel ns/event: netif_rx_exporter probe", fmt(ours.median), spread(ours), ""});
  rows.push_back({"(1) kernel ns/event: bpftrace one-liner", fmt(one.median), spread(one), ""});
  rows.push_back(
      {"(1) kernel ns/event: empty tp_btf (floor)", fmt(floor.median), spread(floor), ""});
  rows.push_back(
      {"    probe / one-liner", fmt(vs_one, 2), "", "<= 0.50: " + verdict(vs_one <= 0.5)});
  rows.push_back(
      {"    probe / floor", fmt(vs_floor, 2), "", "<= 2.0 (aim 1.6): " + verdict(vs_floor <= 2.0)});
}

// Rows (2) and (3): wall-clock ns per packet, and the statistics' share.
void add_wall_clock_rows(std::vector<Row>& rows, const WallClock& wall) {
  const Summary ours = summarize(wall.added[kOurs]);
  const Summary one = summarize(wall.added[kOneLiner]);
  const Summary floor = summarize(wall.added[kFloor]);
  const Summary always = summarize(wall.added[kOursStats]);
  const Summary sampled = summarize(wall.sampled);
  const Summary control = summarize(wall.added[kControl]);
  const Summary base = summarize(wall.base_ns);
  // The statistics' own share in the default mode: duty x (always - off).
  std::vector<double> increment;
  for (std::size_t i = 0; i < wall.added[kOurs].size(); ++i)
    increment.push_back(kDefaultDuty * (wall.added[kOursStats][i] - wall.added[kOurs][i]));
  const Summary share = summarize(increment);
  const double vs_one = ours.median / one.median;
  rows.push_back({"(2) wall ns/packet, no probe (baseline)", fmt(base.median), spread(base), ""});
  rows.push_back({"(2) added ns/packet: control (no probe vs no probe)", fmt(control.median),
                  spread(control), "~0"});
  rows.push_back(
      {"(2) added ns/packet: netif_rx_exporter probe", fmt(ours.median), spread(ours), ""});
  rows.push_back({"(2) added ns/packet: bpftrace one-liner", fmt(one.median), spread(one), ""});
  rows.push_back(
      {"(2) added ns/packet: empty tp_btf (floor)", fmt(floor.median), spread(floor), ""});
  rows.push_back({"    probe / one-liner", fmt(vs_one, 2), "",
                  "<= 0.35 (aim 0.25): " + verdict(vs_one <= 0.35)});
  rows.push_back({"(3) added ns/packet: bpf_stats.mode off", fmt(ours.median), spread(ours), ""});
  rows.push_back({"(3) added ns/packet: bpf_stats.mode sampled (" +
                      format_duration(BpfStatsConfig{}.window) + " every " +
                      format_duration(BpfStatsConfig{}.period) + ")",
                  fmt(sampled.median), spread(sampled), ""});
  rows.push_back(
      {"(3) added ns/packet: bpf_stats.mode always", fmt(always.median), spread(always), ""});
  rows.push_back({"    sampled - off (statistics' share)", fmt(share.median, 2), spread(share, 2),
                  "<= 5: " + verdict(share.median <= 5)});
}

// Rows (4): the exporter's own costs.
void add_exporter_rows(std::vector<Row>& rows, const std::map<int, Summary>& polls,
                       const std::map<int, double>& render, const ScrapeCosts& scrape,
                       int scrapes) {
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
  rows.push_back({"(4) RSS MiB after " + std::to_string(scrapes) + " scrapes",
                  fmt(scrape.rss_mib, 1), "", "<= 10 MiB: " + verdict(scrape.rss_mib <= 10)});
}

int run(int argc, char** argv) {
  std::vector<char*> benchmark_args;
  const Options options = parse_options(argc, argv, benchmark_args);
  if (::geteuid() != 0) throw std::runtime_error("the benchmark loads BPF: run it as root");
  if (sysctl_stats_on())
    std::fprintf(stderr,
                 "warning: kernel.bpf_stats_enabled=1: the statistics-off figures include the "
                 "cost of statistics\n");
  route_libbpf_logs();
  install_cleanup_on_signals();

  WallClock wall;
  std::map<std::string, std::vector<double>> per_event;
  if (options.rounds > 0 || options.kernel_rounds > 0) {
    std::fprintf(stderr, "setting up the namespaces and the programs...\n");
    BenchNetwork network;
    Programs programs{make_our_probe(network.receiver_netns_inum()), make_empty_floor(),
                      make_oneliner()};
    if (options.rounds > 0) wall = measure_wall_clock(network, programs, options);
    if (options.kernel_rounds > 0) per_event = measure_kernel_cost(network, programs, options);
  }

  std::fprintf(stderr, "phase 3: poll, render and scrape costs...\n");
  const auto polls = poll_times({10, 1000, 10000}, 31);
  int bench_argc = static_cast<int>(benchmark_args.size());
  const auto render = run_render_benchmarks(bench_argc, benchmark_args.data());
  const ScrapeCosts scrape = scrape_costs(options.scrapes);

  std::vector<Row> rows;
  rows.push_back({"measurement", "median", "p25 .. p75", "goal (ratio side by side)"});
  add_kernel_rows(rows, std::move(per_event));
  add_wall_clock_rows(rows, wall);
  add_exporter_rows(rows, polls, render, scrape, options.scrapes);
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
