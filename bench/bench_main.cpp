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
#include "map_memory.h"
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

// Kernel-measured ns per event of `programs` attached together on the same
// traffic, one figure per program per round. The attach order alternates
// between rounds: the first program warms the caches for the next.
void measure_together(BenchNetwork& network, const std::vector<BenchProgram*>& programs,
                      int packets, int round, std::map<std::string, std::vector<double>>& out) {
  std::vector<BenchProgram*> order = programs;
  if (round % 2 == 1) std::reverse(order.begin(), order.end());
  for (BenchProgram* program : order) program->attach();
  network.burst(packets / 4);
  std::vector<RunCounters> before;
  for (BenchProgram* program : programs) before.push_back(read_run_counters(program->program_fd()));
  network.burst(packets);
  for (std::size_t i = 0; i < programs.size(); ++i) {
    const RunCounters after = read_run_counters(programs[i]->program_fd());
    if (after.run_count > before[i].run_count)
      out[programs[i]->name()].push_back(
          static_cast<double>(after.run_time_ns - before[i].run_time_ns) /
          static_cast<double>(after.run_count - before[i].run_count));
  }
  for (BenchProgram* program : programs) program->detach();
}

std::string kib(std::uint64_t bytes) { return fmt(static_cast<double>(bytes) / 1024.0, 0); }

// The map memory rows: computed per layout at the default and the largest
// max_devices, for 2 and 64 CPUs, and the kernel's own figure here.
void add_memory_rows(std::vector<Row>& rows) {
  const std::uint32_t largest = 1048576;
  for (const std::uint32_t devices :
       {static_cast<std::uint32_t>(NETIF_RX_DEFAULT_MAX_DEVICES), largest}) {
    for (const unsigned cpus : {2U, 64U}) {
      const MapMemory memory = computed_map_memory(devices, cpus);
      const std::string what = "(6) map KiB, max_devices " + std::to_string(devices) + ", " +
                               std::to_string(cpus) + " CPUs (computed): ";
      rows.push_back({what + "hash layout", kib(memory.hash_layout), "", ""});
      rows.push_back({what + "hash + array layout", kib(memory.array_layout), "", ""});
    }
  }
  const unsigned here = static_cast<unsigned>(libbpf_num_possible_cpus());
  rows.push_back({"(6) map KiB, max_devices 4096, this machine's " + std::to_string(here) +
                      " CPUs: kernel's memlock / computed",
                  kib(measured_array_layout_memory(NETIF_RX_DEFAULT_MAX_DEVICES)),
                  kib(computed_map_memory(NETIF_RX_DEFAULT_MAX_DEVICES, here).array_layout), ""});
}

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
  std::unique_ptr<BenchProgram> ours_hash;
  std::unique_ptr<BenchProgram> floor;
  std::unique_ptr<BenchProgram> oneliner;
  if (network_holder) {
    ours = make_our_probe(network.receiver_netns_inum(), ProbeLayout::array);
    ours_hash = make_our_probe(network.receiver_netns_inum(), ProbeLayout::hash);
    floor = make_empty_floor();
    oneliner = make_oneliner();
  }

  // Phase 1: added wall-clock ns per packet, statistics off, interleaved.
  // Each round measures every configuration once, in a rotating order;
  // differences are paired within the round.
  enum Config { kBase, kOurs, kControl, kOneLiner, kOursStats, kFloor, kOursHash, kConfigs };
  const auto measure = [&](Config config) {
    BenchProgram* program = config == kOurs || config == kOursStats ? ours.get()
                            : config == kOursHash                   ? ours_hash.get()
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
  std::map<std::string, std::vector<double>> together_array;
  std::map<std::string, std::vector<double>> together_hash;
  if (options.kernel_rounds > 0) {
    UniqueFd stats(bpf_enable_stats(BPF_STATS_RUN_TIME));
    if (!stats.valid()) throw std::runtime_error("bpf_enable_stats failed");
    for (int round = 0; round < options.kernel_rounds; ++round) {
      for (BenchProgram* program : {ours.get(), ours_hash.get(), oneliner.get(), floor.get()}) {
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
      // Each layout and the floor attached together, on the same packets.
      measure_together(network, {ours.get(), floor.get()}, options.packets, round, together_array);
      measure_together(network, {ours_hash.get(), floor.get()}, options.packets, round,
                       together_hash);
    }
  }
  ProgramSize probe_size;
  ProgramSize floor_size;
  if (ours) {
    probe_size = read_program_size(ours->program_fd());
    floor_size = read_program_size(floor->program_fd());
  }
  ours.reset();
  ours_hash.reset();
  floor.reset();
  oneliner.reset();

  // Phase 3: the exporter's own costs.
  std::fprintf(stderr, "phase 3: poll, render and scrape costs...\n");
  const auto polls = poll_times({10, 1000, 10000}, 31);
  int bench_argc = static_cast<int>(benchmark_args.size());
  const auto render = run_render_benchmarks(bench_argc, benchmark_args.data());
  const ScrapeCosts scrape = scrape_costs(options.scrapes);

  // The table.
  const std::string kArrayName = "probe, array layout";
  const std::string kHashName = "probe, hash layout";
  const std::string kFloorName = "empty tp_btf (floor)";
  const Summary ev_ours = summarize(per_event[kArrayName]);
  const Summary ev_hash = summarize(per_event[kHashName]);
  const Summary ev_one = summarize(per_event["bpftrace one-liner"]);
  const Summary ev_floor = summarize(per_event[kFloorName]);
  const Summary tog_ours = summarize(together_array[kArrayName]);
  const Summary tog_ours_floor = summarize(together_array[kFloorName]);
  const Summary tog_hash = summarize(together_hash[kHashName]);
  const Summary tog_hash_floor = summarize(together_hash[kFloorName]);
  const Summary add_ours = summarize(added[kOurs]);
  const Summary add_hash = summarize(added[kOursHash]);
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
  const double hash_vs_floor = ev_hash.median / ev_floor.median;
  const double together_vs_floor = tog_ours.median / tog_ours_floor.median;
  const double together_hash_vs_floor = tog_hash.median / tog_hash_floor.median;
  const double packet_vs_one = add_ours.median / add_one.median;
  const double hash_packet_vs_one = add_hash.median / add_one.median;

  std::vector<Row> rows;
  rows.push_back({"measurement", "median", "p25 .. p75", "goal (ratio side by side)"});
  rows.push_back({"(1) kernel ns/event, alone: probe, array layout (own namespace)",
                  fmt(ev_ours.median), spread(ev_ours), ""});
  rows.push_back({"(1) kernel ns/event, alone: probe, hash layout (other namespaces)",
                  fmt(ev_hash.median), spread(ev_hash), ""});
  rows.push_back(
      {"(1) kernel ns/event, alone: bpftrace one-liner", fmt(ev_one.median), spread(ev_one), ""});
  rows.push_back({"(1) kernel ns/event, alone: empty tp_btf (floor)", fmt(ev_floor.median),
                  spread(ev_floor), ""});
  rows.push_back({"    array probe / one-liner", fmt(event_vs_one, 2), "",
                  "<= 0.50: " + verdict(event_vs_one <= 0.5)});
  rows.push_back({"    array probe / floor", fmt(event_vs_floor, 2), "",
                  "<= 1.35: " + verdict(event_vs_floor <= 1.35)});
  rows.push_back({"    hash probe / floor", fmt(hash_vs_floor, 2), "", ""});
  rows.push_back(
      {"(1) kernel ns/event, together: array probe", fmt(tog_ours.median), spread(tog_ours), ""});
  rows.push_back({"(1) kernel ns/event, together: floor beside it", fmt(tog_ours_floor.median),
                  spread(tog_ours_floor), ""});
  rows.push_back({"    array probe / floor, together", fmt(together_vs_floor, 2), "",
                  "<= 1.35: " + verdict(together_vs_floor <= 1.35)});
  rows.push_back(
      {"(1) kernel ns/event, together: hash probe", fmt(tog_hash.median), spread(tog_hash), ""});
  rows.push_back({"(1) kernel ns/event, together: floor beside it", fmt(tog_hash_floor.median),
                  spread(tog_hash_floor), ""});
  rows.push_back({"    hash probe / floor, together", fmt(together_hash_vs_floor, 2), "", ""});
  rows.push_back({"(2) wall ns/packet, no probe (baseline)", fmt(base.median), spread(base), ""});
  rows.push_back({"(2) added ns/packet: control (no probe vs no probe)", fmt(control.median),
                  spread(control), "~0"});
  rows.push_back(
      {"(2) added ns/packet: probe, array layout", fmt(add_ours.median), spread(add_ours), ""});
  rows.push_back(
      {"(2) added ns/packet: probe, hash layout", fmt(add_hash.median), spread(add_hash), ""});
  rows.push_back(
      {"(2) added ns/packet: bpftrace one-liner", fmt(add_one.median), spread(add_one), ""});
  rows.push_back(
      {"(2) added ns/packet: empty tp_btf (floor)", fmt(add_floor.median), spread(add_floor), ""});
  // The wall-clock ratio means something only when the noise (the control's
  // interquartile range) is well below what the one-liner adds.
  const bool wall_measurable = control.p75 - control.p25 < add_one.median / 2;
  rows.push_back({"    array probe / one-liner", fmt(packet_vs_one, 2), "",
                  wall_measurable ? "<= 0.20: " + verdict(packet_vs_one <= 0.2)
                                  : "<= 0.20: too noisy to judge (control)"});
  rows.push_back({"    hash probe / one-liner", fmt(hash_packet_vs_one, 2), "", ""});
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
  rows.push_back({"(5) probe: BPF instructions after the verifier (xlated)",
                  std::to_string(probe_size.xlated_insns), "", ""});
  rows.push_back(
      {"(5) probe: machine code bytes (jited)", std::to_string(probe_size.jited_bytes), "", ""});
  rows.push_back(
      {"(5) floor: xlated instructions / jited bytes",
       std::to_string(floor_size.xlated_insns) + " / " + std::to_string(floor_size.jited_bytes), "",
       ""});
  add_memory_rows(rows);

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
