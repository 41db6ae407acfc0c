// make bench: the probe's cost side by side with the bpftrace one-liner and
// an empty tp_btf program, in one run, and the exporter's own costs. Prints
// one table.
//
//   netif_rx_bench [--rounds=N] [--packets=N] [--kernel-rounds=N]
//                  [--scrapes=N] [--render-only] [--poll-only[=N,N,...]]
//                  [--poll-rounds=N] [--kernel-only] [--receive-path-only]
//                  [Google Benchmark flags]
//
// --render-only: the /metrics render rows alone (no BPF, no root), e.g. to
// compare two builds of the exposition code.
// --poll-only: the poll rows alone (root: the probe is loaded, not
// attached), by default at 10, 1,000, 10,000 and 100,000 devices, or at the
// device counts given; --poll-rounds polls each count N times (31).
// --kernel-only: the kernel-statistics rows (1) and (9) alone (root), e.g.
// to compare two builds of the probe.
// --receive-path-only: the drop storm and NAPI rows (10) and (11) alone
// (root), with as many rounds as --kernel-rounds (at most 15).
#include <bpf/bpf.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/logging.h"
#include "bench_network.h"
#include "bpf_stats/bpf_stats_data.h"
#include "config/config.h"
#include "exporter_costs.h"
#include "kernel_programs.h"
#include "map_memory.h"
#include "oneliner.h"
#include "owner_scan_bench.h"
#include "probe/probe.h"
#include "receive_path_costs.h"
#include "render_bench.h"
#include "stats.h"
#include "util/unique_fd.h"

namespace netif_rx::bench {
namespace {

struct Options {
  int rounds = 101;        // A/B alternations of the wall-clock phase
  int packets = 4096;      // datagrams per burst
  int kernel_rounds = 36;  // rounds of the kernel-statistics phase: 6 x every order of 3
  int scrapes = 10000;
  bool render_only = false;
  bool poll_only = false;
  bool kernel_only = false;        // the kernel-statistics rows (1) and (9) alone
  bool receive_path_only = false;  // the drop storm and NAPI rows (10) and (11) alone
  std::vector<int> poll_devices{10, 1000, 10000, 100000};
  int poll_rounds = 31;
};

const char kUsage[] =
    "usage: netif_rx_bench [--rounds=N] [--packets=N] [--kernel-rounds=N] [--scrapes=N]\n"
    "                      [--render-only] [--poll-only[=N,N,...]] [--poll-rounds=N]\n"
    "                      [--kernel-only] [--receive-path-only] [--benchmark_...]\n";

// A positive count given as --NAME=N.
int count_of(const std::string& arg, const std::string& prefix) {
  const std::string text = arg.substr(prefix.size());
  std::size_t used = 0;
  int value = 0;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || value <= 0)
    throw std::invalid_argument(arg + ": not a positive count (e.g. " + prefix + "31)");
  return value;
}

// Sets `*value` when `arg` is --NAME=N; returns whether it was.
bool count_flag(const std::string& arg, const char* name, int* value) {
  const std::string prefix = std::string("--") + name + "=";
  if (arg.rfind(prefix, 0) != 0) return false;
  *value = count_of(arg, prefix);
  return true;
}

// One of the benchmark's switches (no value); returns whether `arg` was one.
bool switch_flag(const std::string& arg, Options& options) {
  bool* const value = arg == "--render-only"         ? &options.render_only
                      : arg == "--poll-only"         ? &options.poll_only
                      : arg == "--kernel-only"       ? &options.kernel_only
                      : arg == "--receive-path-only" ? &options.receive_path_only
                                                     : nullptr;
  if (value != nullptr) *value = true;
  return value != nullptr;
}

// The benchmark's own flags; Google Benchmark's go to `benchmark_args`. Anything else is refused
// in one line: a mistyped flag must not start a run of minutes with the defaults.
Options parse_options(int argc, char** argv, std::vector<char*>& benchmark_args) {
  Options options;
  benchmark_args.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (arg.rfind("--benchmark", 0) == 0) {
      benchmark_args.push_back(argv[i]);
      continue;
    }
    if (count_flag(arg, "rounds", &options.rounds) ||
        count_flag(arg, "packets", &options.packets) ||
        count_flag(arg, "kernel-rounds", &options.kernel_rounds) ||
        count_flag(arg, "scrapes", &options.scrapes) ||
        count_flag(arg, "poll-rounds", &options.poll_rounds) || switch_flag(arg, options))
      continue;
    const std::string devices_prefix = "--poll-only=";
    if (arg.rfind(devices_prefix, 0) != 0)
      throw std::invalid_argument("unknown option '" + arg +
                                  "' (netif_rx_bench --help lists them)");
    options.poll_only = true;
    options.poll_devices.clear();
    std::istringstream counts(arg.substr(devices_prefix.size()));
    for (std::string count; std::getline(counts, count, ',');)
      options.poll_devices.push_back(count_of("--poll-only=" + count, devices_prefix));
  }
  return options;
}

// The default sampling duty cycle (bpf_stats.window / bpf_stats.period).
const double kDefaultDuty = static_cast<double>(BpfStatsConfig{}.window.count()) /
                            static_cast<double>(BpfStatsConfig{}.period.count());

// The names the programs report (BenchProgram::name), which key the figures.
const std::string kArrayName = "probe, array layout";
const std::string kHashName = "probe, hash layout";
const std::string kWithoutRoutesName = "probe, array layout without queues and steering";
const std::string kBlocksName = "probe, array blocks";
const std::string kOneLinerName = "bpftrace one-liner";
const std::string kFloorName = "empty tp_btf (floor)";

std::string fmt(double value, int decimals = 1) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string spread(const Summary& s, int decimals = 1) {
  return fmt(s.p25, decimals) + " .. " + fmt(s.p75, decimals);
}

std::string kib(std::uint64_t bytes) { return fmt(static_cast<double>(bytes) / 1024.0, 0); }

// "met" or "MISSED"; a figure that was not measured (a phase skipped: NaN) meets nothing.
std::string verdict(double value, double limit) {
  if (!std::isfinite(value)) return "not measured";
  return value <= limit ? "met" : "MISSED";
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
  if (rows.empty()) return;
  line(rows[0]);
  std::printf("|%s|%s|%s|%s|\n", std::string(widths[0] + 2, '-').c_str(),
              std::string(widths[1] + 2, '-').c_str(), std::string(widths[2] + 2, '-').c_str(),
              std::string(widths[3] + 2, '-').c_str());
  for (std::size_t i = 1; i < rows.size(); ++i) line(rows[i]);
}

bool sysctl_stats_on() {
  std::ifstream in("/proc/sys/kernel/bpf_stats_enabled");
  int value = 0;
  in >> value;
  return value == 1;
}

// The programs compared, loaded once, each attached only while measured.
// None is null: they are built together or not at all. The kernel rows of
// the array probe, the ladder and the floor measure FreshPrograms instead;
// these serve the wall-clock phase, the other rows and the rungs' names.
struct Programs {
  explicit Programs(BenchNetwork& network)
      : ours(make_our_probe(network.receiver_netns_inum(), ProbeLayout::array)),
        ours_hash(make_our_probe(network.receiver_netns_inum(), ProbeLayout::hash)),
        ours_blocks(make_our_probe_in_blocks({network.receiver_netns_inum()},
                                             [&network] { network.burst(16); })),
        floor(make_empty_floor()),
        oneliner(make_oneliner()),
        ladder(make_cost_ladder(network.receiver_netns_inum())) {}

  std::unique_ptr<BenchProgram> ours;
  std::unique_ptr<BenchProgram> ours_hash;
  std::unique_ptr<BenchProgram> ours_blocks;
  std::unique_ptr<BenchProgram> floor;
  std::unique_ptr<BenchProgram> oneliner;
  std::vector<std::unique_ptr<BenchProgram>> ladder;
};

enum Config { kBase, kOurs, kControl, kOneLiner, kOursStats, kFloor, kOursHash, kConfigs };

// Phase 1's figures: wall-clock ns per packet, by configuration.
struct WallClock {
  std::vector<double> added[kConfigs];  // over the same round's baseline
  std::vector<double> base_ns;
  std::vector<double> sampled;  // the array probe with statistics at the default duty
};

using Samples = std::map<std::string, std::vector<double>>;  // by program name

// Phase 2's figures: kernel-measured ns per event, and the programs' sizes.
struct KernelCosts {
  Samples alone;
  Samples together_array;   // the array probe and the floor attached together
  Samples together_hash;    // the hash probe and the floor attached together
  Samples together_ladder;  // the array probe, the last rung and the floor attached together
  Samples together_blocks;  // the blocks probe and the floor attached together
  ProgramSize probe_size;
  ProgramSize floor_size;
};

// One configuration's wall-clock ns per packet.
double measure(BenchNetwork& network, const Programs& programs, Config config, int packets) {
  BenchProgram* program = config == kOurs || config == kOursStats ? programs.ours.get()
                          : config == kOursHash                   ? programs.ours_hash.get()
                          : config == kOneLiner                   ? programs.oneliner.get()
                          : config == kFloor                      ? programs.floor.get()
                                                                  : nullptr;
  UniqueFd stats;
  if (config == kOursStats) stats.reset(bpf_enable_stats(BPF_STATS_RUN_TIME));
  if (program) program->attach();
  network.burst(packets / 4);  // warm the caches with this configuration
  // The least of three bursts: an interrupt or another task on the CPU
  // only ever adds time, so the minimum is the least disturbed figure.
  double ns = network.burst(packets);
  for (int i = 0; i < 2; ++i) ns = std::min(ns, network.burst(packets));
  if (program) program->detach();
  return ns;
}

// Phase 1: added wall-clock ns per packet, statistics off, interleaved.
// Each round measures every configuration once, in a rotating order;
// differences are paired within the round.
WallClock measure_wall_clock(BenchNetwork& network, const Programs& programs,
                             const Options& options) {
  for (int i = 0; i < 20 && options.rounds > 0; ++i) network.burst(options.packets);  // warm up
  std::fprintf(stderr, "phase 1: %d rounds of %d configurations x %d packets...\n", options.rounds,
               static_cast<int>(kConfigs), options.packets);
  WallClock out;
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

// Kernel-measured ns per event of `program` attached alone, into `out`.
// `Network`: BenchNetwork or SpreadNetwork.
template <typename Network>
void measure_alone(Network& network, BenchProgram& program, int packets, Samples& out) {
  program.attach();
  network.burst(packets / 4);
  const RunCounters before = read_run_counters(program.program_fd());
  network.burst(packets);
  const RunCounters after = read_run_counters(program.program_fd());
  program.detach();
  // The same derivation as the dashboards: delta(run time) / delta(runs).
  BpfProgramStats first;
  first.run_time_ns = before.run_time_ns;
  first.run_count = before.run_count;
  BpfProgramStats second;
  second.run_time_ns = after.run_time_ns;
  second.run_count = after.run_count;
  if (after.run_count > before.run_count)
    out[program.name()].push_back(derive_cost(first, second, 1.0).ns_per_run);
}

// The attach order of round `round`: the rounds go through every order of
// `programs` in turn (two programs: they alternate; three: six orders), so
// that each program runs before each other one in as many rounds as after it.
// The program that runs first warms the caches for the ones after it; a
// rotation would not be fair between three (the first of the list would run
// before the second in two rounds of three).
std::size_t attach_orders(std::size_t programs) {
  std::size_t orders = 1;
  for (std::size_t n = 2; n <= programs; ++n) orders *= n;
  return orders;
}

std::vector<BenchProgram*> attach_order(const std::vector<BenchProgram*>& programs, int round) {
  std::vector<std::size_t> indexes(programs.size());
  for (std::size_t i = 0; i < indexes.size(); ++i) indexes[i] = i;
  const std::size_t orders = attach_orders(programs.size());
  for (std::size_t step = 0; step < static_cast<std::size_t>(round) % orders; ++step)
    std::next_permutation(indexes.begin(), indexes.end());
  std::vector<BenchProgram*> order;
  for (std::size_t index : indexes) order.push_back(programs[index]);
  return order;
}

// Kernel-measured ns per event of `programs` attached together on the same
// traffic, one figure per program per round, in attach_order().
void measure_together(BenchNetwork& network, const std::vector<BenchProgram*>& programs,
                      int packets, int round, Samples& out) {
  const std::vector<BenchProgram*> order = attach_order(programs, round);
  for (BenchProgram* program : order) program->attach();
  network.burst(packets / 4);
  std::vector<RunCounters> before;
  for (BenchProgram* program : programs) before.push_back(read_run_counters(program->program_fd()));
  network.burst(packets);
  // One sample per program per round, NaN for a program that did not run,
  // so that a sample's index stays its round (its attach order, and the
  // floor of the same round).
  for (std::size_t i = 0; i < programs.size(); ++i) {
    const RunCounters after = read_run_counters(programs[i]->program_fd());
    out[programs[i]->name()].push_back(
        after.run_count > before[i].run_count
            ? static_cast<double>(after.run_time_ns - before[i].run_time_ns) /
                  static_cast<double>(after.run_count - before[i].run_count)
            : std::nan(""));
  }
  for (BenchProgram* program : programs) program->detach();
}

// The programs whose differences the kernel rows compare (the probe's array
// layout with and without queues and steering, the cost ladder, the floor),
// loaded afresh for each cycle of the attach orders of the three measured
// together. Where the JIT places a program's code and where its maps land
// shift its cost by a few ns for as long as it stays loaded, as much as the
// last rung costs above the floor; loaded again every cycle, those shifts
// fall in different places each time, and the figures of many cycles do not
// hang on one placement.
struct FreshPrograms {
  FreshPrograms() = default;
  explicit FreshPrograms(BenchNetwork& network)
      : probe(make_our_probe(network.receiver_netns_inum(), ProbeLayout::array)),
        probe_without_routes(
            make_our_probe(network.receiver_netns_inum(), ProbeLayout::array_without_routes)),
        ladder(make_cost_ladder(network.receiver_netns_inum())),
        floor(make_empty_floor()) {
    if (ladder.empty()) throw std::runtime_error("the cost ladder has no rung");
  }
  // The probe, the last rung and the floor.
  std::vector<BenchProgram*> ladder_trio() const {
    return {probe.get(), ladder.back().get(), floor.get()};
  }

  std::unique_ptr<BenchProgram> probe;
  std::unique_ptr<BenchProgram> probe_without_routes;
  std::vector<std::unique_ptr<BenchProgram>> ladder;
  std::unique_ptr<BenchProgram> floor;
};
const int kLadderOrders = static_cast<int>(attach_orders(3));

// Phase 2: kernel-measured ns per event, statistics on (held by the
// benchmark), each program alone, then each layout beside the floor.
KernelCosts measure_kernel_costs(BenchNetwork& network, const Programs& programs,
                                 const Options& options) {
  std::fprintf(stderr, "phase 2: %d rounds of kernel statistics...\n", options.kernel_rounds);
  KernelCosts out;
  if (options.kernel_rounds > 0) {
    UniqueFd stats(bpf_enable_stats(BPF_STATS_RUN_TIME));
    if (!stats.valid()) throw std::runtime_error("bpf_enable_stats failed");
    FreshPrograms fresh;
    for (int round = 0; round < options.kernel_rounds; ++round) {
      if (round % kLadderOrders == 0) fresh = FreshPrograms(network);
      for (BenchProgram* program :
           {fresh.probe.get(), fresh.probe_without_routes.get(), programs.ours_hash.get(),
            programs.ours_blocks.get(), programs.oneliner.get(), fresh.floor.get()})
        measure_alone(network, *program, options.packets, out.alone);
      for (const auto& rung : fresh.ladder)
        measure_alone(network, *rung, options.packets, out.alone);
      measure_together(network, {fresh.probe.get(), fresh.floor.get()}, options.packets, round,
                       out.together_array);
      measure_together(network, {programs.ours_hash.get(), fresh.floor.get()}, options.packets,
                       round, out.together_hash);
      measure_together(network, {programs.ours_blocks.get(), fresh.floor.get()}, options.packets,
                       round, out.together_blocks);
      measure_together(network, fresh.ladder_trio(), options.packets, round, out.together_ladder);
    }
  }
  out.probe_size = read_program_size(programs.ours->program_fd());
  out.floor_size = read_program_size(programs.floor->program_fd());
  return out;
}

// Rounds of the drop storm and of the NAPI counter (at most): each drop storm
// round takes three storms of a quarter second.
constexpr int kReceivePathRounds = 15;

constexpr int kSpreadNamespaces = 10;
constexpr int kSpreadDevices = 10;
const std::string kOtherHashName = "probe, hash (other namespaces)";

// Phase 2c: kernel-measured ns per event of node-like traffic, datagrams to
// 10 namespaces x 10 devices in turn: the probe with the namespaces in
// blocks, the same probe without blocks (every namespace in the hash), the
// floor, each attached alone.
Samples measure_spread_costs(const Options& options) {
  Samples out;
  if (options.kernel_rounds <= 0) return out;
  std::fprintf(stderr, "phase 2c: %d rounds over %d namespaces x %d devices...\n",
               options.kernel_rounds, kSpreadNamespaces, kSpreadDevices);
  SpreadNetwork network(kSpreadNamespaces, kSpreadDevices);
  const auto every_device = [&network] { network.burst(2 * kSpreadNamespaces * kSpreadDevices); };
  const auto blocks = make_our_probe_in_blocks(network.receiver_netns_inums(), every_device);
  const auto hash = make_our_probe_in_blocks({}, every_device);
  const auto floor = make_empty_floor();
  UniqueFd stats(bpf_enable_stats(BPF_STATS_RUN_TIME));
  if (!stats.valid()) throw std::runtime_error("bpf_enable_stats failed");
  for (int round = 0; round < options.kernel_rounds; ++round) {
    for (BenchProgram* program : {blocks.get(), hash.get(), floor.get()})
      measure_alone(network, *program, options.packets, out);
  }
  return out;
}

// Phase 2b's figures: bulk TCP through a veth with GRO on (MTU frames merged
// into aggregates one way, acknowledgements the other).
struct GroCosts {
  std::vector<double> probe_ns_per_event;
  std::vector<double> probe_ns_per_packet;
  std::vector<double> floor_ns_per_event;
  std::vector<double> packets_per_event;
};

constexpr std::uint64_t kGroBytes = 8ULL << 20;

// Phase 2b: kernel-measured ns per event and per packet of bulk TCP that the
// receiver's GRO merges, the probe and the floor each attached alone.
GroCosts measure_gro_costs(BenchNetwork& network, const Programs& programs, int rounds) {
  GroCosts out;
  if (rounds <= 0) return out;
  std::fprintf(stderr, "phase 2b: %d rounds of bulk TCP through GRO...\n", rounds);
  UniqueFd stats(bpf_enable_stats(BPF_STATS_RUN_TIME));
  if (!stats.valid()) throw std::runtime_error("bpf_enable_stats failed");
  network.merge_received_tcp();
  network.bulk_tcp(kGroBytes / 4);  // warm up
  for (int round = 0; round < rounds; ++round) {
    for (BenchProgram* program : {programs.ours.get(), programs.floor.get()}) {
      program->attach();
      const RunCounters before = read_run_counters(program->program_fd());
      const std::uint64_t frames_before = network.frames_received();
      network.bulk_tcp(kGroBytes);
      const RunCounters after = read_run_counters(program->program_fd());
      const auto frames = static_cast<double>(network.frames_received() - frames_before);
      program->detach();
      const auto runs = static_cast<double>(after.run_count - before.run_count);
      const auto ns = static_cast<double>(after.run_time_ns - before.run_time_ns);
      if (runs <= 0 || frames <= 0) continue;
      if (program == programs.floor.get()) {
        out.floor_ns_per_event.push_back(ns / runs);
        continue;
      }
      out.probe_ns_per_event.push_back(ns / runs);
      out.probe_ns_per_packet.push_back(ns / frames);
      out.packets_per_event.push_back(frames / runs);
    }
  }
  return out;
}

// Phase 3's figures: the exporter's own costs.
struct ExporterCosts {
  std::map<int, Summary> polls;  // by device count
  RenderTimes render;            // by series count
  ScrapeCosts scrape;
  OwnerScanCost owner_scan;
};

ExporterCosts measure_exporter_costs(std::vector<char*>& benchmark_args, int scrapes) {
  std::fprintf(stderr, "phase 3: poll, render and scrape costs...\n");
  ExporterCosts out;
  out.polls = poll_times({10, 1000, 10000, 100000}, 31);
  int bench_argc = static_cast<int>(benchmark_args.size());
  out.render = run_render_benchmarks(bench_argc, benchmark_args.data());
  out.scrape = scrape_costs(scrapes);
  out.owner_scan = owner_scan_cost(15);
  return out;
}

// The summary of one program's figures; an empty one if it has none.
Summary summary_of(const Samples& samples, const std::string& name) {
  const auto found = samples.find(name);
  return summarize(found == samples.end() ? std::vector<double>{} : found->second);
}

// Rows (1): kernel ns per event, each program attached alone.
void add_alone_rows(std::vector<Row>& rows, const Samples& alone) {
  const Summary ours = summary_of(alone, kArrayName);
  const Summary hash = summary_of(alone, kHashName);
  const Summary blocks = summary_of(alone, kBlocksName);
  const Summary one = summary_of(alone, kOneLinerName);
  const Summary floor = summary_of(alone, kFloorName);
  const double vs_one = ours.median / one.median;
  const double vs_floor = ours.median / floor.median;
  const double hash_vs_floor = hash.median / floor.median;
  rows.push_back({"(1) kernel ns/event, alone: probe, array layout (own namespace)",
                  fmt(ours.median), spread(ours), ""});
  rows.push_back({"(1) kernel ns/event, alone: probe, hash layout (other namespaces)",
                  fmt(hash.median), spread(hash), ""});
  rows.push_back({"(1) kernel ns/event, alone: probe, array blocks (other namespace, placed)",
                  fmt(blocks.median), spread(blocks), ""});
  rows.push_back(
      {"(1) kernel ns/event, alone: bpftrace one-liner", fmt(one.median), spread(one), ""});
  rows.push_back(
      {"(1) kernel ns/event, alone: empty tp_btf (floor)", fmt(floor.median), spread(floor), ""});
  rows.push_back(
      {"    array probe / one-liner", fmt(vs_one, 2), "", "<= 0.50: " + verdict(vs_one, 0.5)});
  rows.push_back(
      {"    array probe / floor", fmt(vs_floor, 2), "", "<= 1.35: " + verdict(vs_floor, 1.35)});
  rows.push_back({"    hash probe / floor", fmt(hash_vs_floor, 2), "", ""});
  const double blocks_vs_floor = blocks.median / floor.median;
  rows.push_back({"    array blocks probe / floor", fmt(blocks_vs_floor, 2), "",
                  "<= 1.35: " + verdict(blocks_vs_floor, 1.35)});
}

// A program's figure of rounds of `programs` programs attached together:
// each attach order weighs the same (summarize_by_order; the spread column
// shows the least and the largest order's median).
Summary together_summary(const std::vector<double>& by_round, std::size_t programs) {
  return summarize_by_order(by_round, attach_orders(programs));
}

Summary together_summary_of(const Samples& samples, const std::string& name, std::size_t programs) {
  const auto found = samples.find(name);
  if (found == samples.end()) return {};
  return together_summary(found->second, programs);
}

// Rows (1): kernel ns per event, each layout attached together with the floor.
void add_together_rows(std::vector<Row>& rows, const KernelCosts& kernel) {
  const Summary ours = together_summary_of(kernel.together_array, kArrayName, 2);
  const Summary ours_floor = together_summary_of(kernel.together_array, kFloorName, 2);
  const Summary hash = together_summary_of(kernel.together_hash, kHashName, 2);
  const Summary hash_floor = together_summary_of(kernel.together_hash, kFloorName, 2);
  const double ours_vs_floor = ours.median / ours_floor.median;
  const double hash_vs_floor = hash.median / hash_floor.median;
  rows.push_back(
      {"(1) kernel ns/event, together: array probe", fmt(ours.median), spread(ours), ""});
  rows.push_back({"(1) kernel ns/event, together: floor beside it", fmt(ours_floor.median),
                  spread(ours_floor), ""});
  rows.push_back({"    array probe / floor, together", fmt(ours_vs_floor, 2), "",
                  "<= 1.35: " + verdict(ours_vs_floor, 1.35)});
  rows.push_back({"(1) kernel ns/event, together: hash probe", fmt(hash.median), spread(hash), ""});
  rows.push_back({"(1) kernel ns/event, together: floor beside it", fmt(hash_floor.median),
                  spread(hash_floor), ""});
  rows.push_back({"    hash probe / floor, together", fmt(hash_vs_floor, 2), "", ""});
  const Summary blocks = together_summary_of(kernel.together_blocks, kBlocksName, 2);
  const Summary blocks_floor = together_summary_of(kernel.together_blocks, kFloorName, 2);
  const double blocks_vs_floor = blocks.median / blocks_floor.median;
  rows.push_back({"(1) kernel ns/event, together: array blocks probe", fmt(blocks.median),
                  spread(blocks), ""});
  rows.push_back({"(1) kernel ns/event, together: floor beside it", fmt(blocks_floor.median),
                  spread(blocks_floor), ""});
  rows.push_back({"    array blocks probe / floor, together", fmt(blocks_vs_floor, 2), "",
                  "<= 1.35: " + verdict(blocks_vs_floor, 1.35)});
}

// Rows (8): node-like traffic, 10 namespaces x 10 devices.
void add_spread_rows(std::vector<Row>& rows, const Samples& spread_costs) {
  const Summary blocks = summary_of(spread_costs, kBlocksName);
  const Summary hash = summary_of(spread_costs, kOtherHashName);
  const Summary floor = summary_of(spread_costs, kFloorName);
  const std::string what = "(8) kernel ns/event, " + std::to_string(kSpreadNamespaces) +
                           " namespaces x " + std::to_string(kSpreadDevices) + " devices: ";
  rows.push_back({what + "probe, array blocks", fmt(blocks.median), spread(blocks), ""});
  rows.push_back({what + "probe, hash (no blocks)", fmt(hash.median), spread(hash), ""});
  rows.push_back({what + "empty tp_btf (floor)", fmt(floor.median), spread(floor), ""});
  const double blocks_vs_floor = blocks.median / floor.median;
  rows.push_back({"    array blocks probe / floor, 10 x 10", fmt(blocks_vs_floor, 2), "",
                  "<= 1.35: " + verdict(blocks_vs_floor, 1.35)});
  rows.push_back({"    hash probe / floor, 10 x 10", fmt(hash.median / floor.median, 2), "", ""});
}

// Each round's `name` minus the floor of the same round (rounds without
// either are skipped).
std::vector<double> above_floor_by_round(const Samples& samples, const std::string& name) {
  std::vector<double> out;
  const auto program = samples.find(name);
  const auto floor = samples.find(kFloorName);
  if (program == samples.end() || floor == samples.end()) return out;
  for (std::size_t i = 0; i < program->second.size() && i < floor->second.size(); ++i)
    out.push_back(program->second[i] - floor->second[i]);
  return out;
}

// Rows (9): the cost ladder, each rung attached alone, against the floor of
// the same rounds, and the probe's array layout on top of it; then the
// probe, the last rung and the floor attached together, so that each
// round's two differences come from the same events.
void add_ladder_rows(std::vector<Row>& rows, const Samples& alone, const Samples& together,
                     const std::vector<std::string>& rungs) {
  const Summary floor = summary_of(alone, kFloorName);
  for (const std::string& rung : rungs) {
    const Summary cost = summary_of(alone, rung);
    rows.push_back({"(9) kernel ns/event, alone: " + rung, fmt(cost.median), spread(cost), ""});
    rows.push_back({"    " + rung.substr(rung.find(':') + 2) + " / floor",
                    fmt(cost.median / floor.median, 2), "", ""});
  }
  if (rungs.empty()) return;
  const Summary ours = summary_of(alone, kArrayName);
  const Summary top = summary_of(alone, rungs.back());
  rows.push_back({"(9) the probe's array layout above the last rung, ns/event",
                  fmt(ours.median - top.median), "", ""});
  // The hot path's queue and alloc_cpu reads (a veth's skb: no queue, built
  // on its CPU), and the array layout above the floor against what the
  // namespace-keeping rung adds above it.
  const Summary without = summary_of(alone, kWithoutRoutesName);
  rows.push_back({"(9) kernel ns/event, alone: " + kWithoutRoutesName, fmt(without.median),
                  spread(without), ""});
  rows.push_back({"(9) queues and steering on the hot path (probe with - without), ns/event",
                  fmt(ours.median - without.median), "", ""});
  const double above = (ours.median - floor.median) / (top.median - floor.median);
  rows.push_back({"    array probe above the floor / last rung above the floor", fmt(above, 2), "",
                  "<= 2.00: " + verdict(above, 2.0)});
  const Summary ours_above = together_summary(above_floor_by_round(together, kArrayName), 3);
  const Summary top_above = together_summary(above_floor_by_round(together, rungs.back()), 3);
  if (ours_above.samples == 0 || top_above.samples == 0) return;
  rows.push_back({"(9) together, above the floor beside them: array probe, ns/event",
                  fmt(ours_above.median), spread(ours_above), ""});
  rows.push_back({"(9) together, above the floor beside them: last rung, ns/event",
                  fmt(top_above.median), spread(top_above), ""});
  const double together_ratio = ours_above.median / top_above.median;
  rows.push_back({"    array probe above the floor / last rung above the floor, together",
                  fmt(together_ratio, 2), "", "<= 2.00: " + verdict(together_ratio, 2.0)});
}

// Rows (7): bulk TCP through GRO: what an aggregate costs, per event and
// per packet it carried.
void add_gro_rows(std::vector<Row>& rows, const GroCosts& gro) {
  const Summary event = summarize(gro.probe_ns_per_event);
  const Summary packet = summarize(gro.probe_ns_per_packet);
  const Summary floor = summarize(gro.floor_ns_per_event);
  const Summary factor = summarize(gro.packets_per_event);
  rows.push_back({"(7) GRO bulk TCP: packets per event (both directions)", fmt(factor.median),
                  spread(factor), ""});
  rows.push_back(
      {"(7) GRO bulk TCP: kernel ns/event, probe", fmt(event.median), spread(event), ""});
  rows.push_back(
      {"(7) GRO bulk TCP: kernel ns/packet, probe", fmt(packet.median, 2), spread(packet, 2), ""});
  rows.push_back({"(7) GRO bulk TCP: kernel ns/event, empty tp_btf (floor)", fmt(floor.median),
                  spread(floor), ""});
  rows.push_back(
      {"    probe / floor per event, GRO bulk TCP", fmt(event.median / floor.median, 2), "", ""});
}

// Rows (10): the drop counter in a drop storm, beside the probe and the
// floor, and against the drops' own cost.
void add_drop_storm_rows(std::vector<Row>& rows, const DropStormCosts& storm) {
  const std::string what = "(10) drop storm, " + std::to_string(kDropStormRate / 1000) +
                           "k datagrams/s to a closed port: ";
  if (!storm.skipped.empty()) {
    rows.push_back({what + "not measured (" + storm.skipped + ")", "", "", ""});
    return;
  }
  const Summary rate = summarize(storm.drops_per_second);
  const Summary counter = summarize(storm.counter_ns_per_drop);
  const Summary probe = summarize(storm.probe_ns_per_event);
  const Summary floor = summarize(storm.floor_ns_per_event);
  const Summary drop = summarize(storm.drop_wall_ns);
  const Summary added = summarize(storm.counter_added_wall_ns);
  rows.push_back({what + "drops counted per second", fmt(rate.median, 0), spread(rate, 0), ""});
  rows.push_back({what + "kernel ns/drop, drop counter", fmt(counter.median), spread(counter), ""});
  rows.push_back({what + "kernel ns/event, probe beside it", fmt(probe.median), spread(probe), ""});
  rows.push_back({what + "kernel ns/event, floor beside it", fmt(floor.median), spread(floor), ""});
  rows.push_back({"    drop counter per drop / floor, together",
                  fmt(counter.median / floor.median, 2), "", ""});
  rows.push_back({what + "wall ns per dropped packet, no counter (the drop)", fmt(drop.median),
                  spread(drop), ""});
  rows.push_back(
      {what + "added wall ns per drop, drop counter", fmt(added.median), spread(added), ""});
  const double kernel_vs_drop = counter.median / drop.median;
  const double added_vs_drop = added.median / drop.median;
  rows.push_back({"    drop counter's kernel ns / the drop's own ns", fmt(kernel_vs_drop, 2), "",
                  "<= 1.00: " + verdict(kernel_vs_drop, 1.0)});
  rows.push_back({"    drop counter's added wall ns / the drop's own ns", fmt(added_vs_drop, 2), "",
                  "<= 1.00: " + verdict(added_vs_drop, 1.0)});
  const double per_second = kDropStormRate / 1e9 * 100;  // ns per drop -> % of a CPU
  rows.push_back({what + "% of a CPU: the drops / the drop counter (kernel ns)",
                  fmt(drop.median * per_second, 1) + " / " + fmt(counter.median * per_second, 2),
                  "", ""});
}

// Rows (11): the NAPI counter in bulk TCP through GRO, beside the probe and
// the floor.
void add_napi_rows(std::vector<Row>& rows, const NapiCosts& napi) {
  const std::string what = "(11) NAPI, GRO bulk TCP: ";
  if (!napi.skipped.empty()) {
    rows.push_back({what + "not measured (" + napi.skipped + ")", "", "", ""});
    return;
  }
  const Summary per_poll = summarize(napi.packets_per_poll);
  const Summary exhausted = summarize(napi.exhausted_share);
  const Summary poll = summarize(napi.counter_ns_per_poll);
  const Summary packet = summarize(napi.counter_ns_per_packet);
  const Summary probe = summarize(napi.probe_ns_per_event);
  const Summary floor = summarize(napi.floor_ns_per_event);
  rows.push_back(
      {what + "packets per poll (receiving veth)", fmt(per_poll.median), spread(per_poll), ""});
  rows.push_back({what + "% of its polls that used their budget", fmt(100 * exhausted.median),
                  fmt(100 * exhausted.p25) + " .. " + fmt(100 * exhausted.p75), ""});
  rows.push_back({what + "kernel ns/poll, NAPI counter", fmt(poll.median), spread(poll), ""});
  rows.push_back(
      {what + "kernel ns/packet, NAPI counter", fmt(packet.median, 2), spread(packet, 2), ""});
  rows.push_back({what + "kernel ns/event, probe beside it", fmt(probe.median), spread(probe), ""});
  rows.push_back({what + "kernel ns/event, floor beside it", fmt(floor.median), spread(floor), ""});
  rows.push_back(
      {"    NAPI counter per poll / floor, together", fmt(poll.median / floor.median, 2), "", ""});
}

// Rows (2): added wall-clock ns per packet.
void add_wall_clock_rows(std::vector<Row>& rows, const WallClock& wall) {
  const Summary base = summarize(wall.base_ns);
  const Summary control = summarize(wall.added[kControl]);
  const Summary ours = summarize(wall.added[kOurs]);
  const Summary hash = summarize(wall.added[kOursHash]);
  const Summary one = summarize(wall.added[kOneLiner]);
  const Summary floor = summarize(wall.added[kFloor]);
  const double vs_one = ours.median / one.median;
  const double hash_vs_one = hash.median / one.median;
  rows.push_back({"(2) wall ns/packet, no probe (baseline)", fmt(base.median), spread(base), ""});
  rows.push_back({"(2) added ns/packet: control (no probe vs no probe)", fmt(control.median),
                  spread(control), "~0"});
  rows.push_back({"(2) added ns/packet: probe, array layout", fmt(ours.median), spread(ours), ""});
  rows.push_back({"(2) added ns/packet: probe, hash layout", fmt(hash.median), spread(hash), ""});
  rows.push_back({"(2) added ns/packet: bpftrace one-liner", fmt(one.median), spread(one), ""});
  rows.push_back(
      {"(2) added ns/packet: empty tp_btf (floor)", fmt(floor.median), spread(floor), ""});
  // The wall-clock ratio means something only when the noise (the control's
  // interquartile range) is well below what the one-liner adds.
  const bool wall_measurable = control.p75 - control.p25 < one.median / 2;
  rows.push_back({"    array probe / one-liner", fmt(vs_one, 2), "",
                  wall_measurable ? "<= 0.20: " + verdict(vs_one, 0.2)
                                  : "<= 0.20: too noisy to judge (control)"});
  rows.push_back({"    hash probe / one-liner", fmt(hash_vs_one, 2), "", ""});
}

// Rows (3): the cost of the kernel's statistics, by bpf_stats.mode.
void add_statistics_rows(std::vector<Row>& rows, const WallClock& wall) {
  const Summary off = summarize(wall.added[kOurs]);
  const Summary sampled = summarize(wall.sampled);
  const Summary always = summarize(wall.added[kOursStats]);
  // The statistics' own share in the default mode: duty x (always - off).
  std::vector<double> increment;
  for (std::size_t i = 0; i < wall.added[kOurs].size(); ++i)
    increment.push_back(kDefaultDuty * (wall.added[kOursStats][i] - wall.added[kOurs][i]));
  const Summary share = summarize(increment);
  rows.push_back({"(3) added ns/packet: bpf_stats.mode off", fmt(off.median), spread(off), ""});
  rows.push_back({"(3) added ns/packet: bpf_stats.mode sampled (" +
                      format_duration(BpfStatsConfig{}.window) + " every " +
                      format_duration(BpfStatsConfig{}.period) + ")",
                  fmt(sampled.median), spread(sampled), ""});
  rows.push_back(
      {"(3) added ns/packet: bpf_stats.mode always", fmt(always.median), spread(always), ""});
  rows.push_back({"    sampled - off (statistics' share)", fmt(share.median, 2), spread(share, 2),
                  "<= 5: " + verdict(share.median, 5)});
}

// Rows (4): /metrics rendered from a snapshot, as text and gzipped.
void add_render_rows(std::vector<Row>& rows, const RenderTimes& render) {
  for (const auto& [series, ms] : render.plain) {
    const double limit = series == 1000 ? 1 : 100;
    rows.push_back({"(4) /metrics render+serialize ms, " + std::to_string(series) + " series",
                    fmt(ms, 3), "", "<= " + fmt(limit, 0) + " ms: " + verdict(ms, limit)});
  }
  for (const auto& [series, ms] : render.gzip) {
    rows.push_back({"(4) /metrics render+serialize+gzip ms, " + std::to_string(series) + " series",
                    fmt(ms, 3), "", ""});
  }
}

// Rows (4): the poll times, by device count.
void add_poll_rows(std::vector<Row>& rows, const std::map<int, Summary>& polls) {
  // Goals: linear in the devices, 0.5 us a device from 1,000 on.
  const std::map<int, double> poll_limits{{1000, 0.5}, {10000, 5}, {100000, 50}};
  for (const auto& [devices, summary] : polls) {
    const auto limit = poll_limits.find(devices);
    rows.push_back({"(4) poll ms, " + std::to_string(devices) + " devices (synthetic)",
                    fmt(summary.median, 3), spread(summary, 3),
                    limit == poll_limits.end()
                        ? ""
                        : "<= " + fmt(limit->second, limit->second < 1 ? 1 : 0) +
                              " ms: " + verdict(summary.median, limit->second)});
  }
}

// Rows (4): the exporter's own costs.
void add_exporter_rows(std::vector<Row>& rows, const ExporterCosts& costs, int scrapes) {
  add_poll_rows(rows, costs.polls);
  add_render_rows(rows, costs.render);
  const ScrapeCosts& scrape = costs.scrape;
  rows.push_back({"(4) /metrics over HTTP ms, real exporter (" + std::to_string(scrape.series) +
                      " device x CPU series)",
                  fmt(scrape.latency_ms.median, 3), spread(scrape.latency_ms, 3), ""});
  rows.push_back({"(4) /metrics over HTTP ms, Accept-Encoding: gzip, same exporter",
                  fmt(scrape.gzip_latency_ms.median, 3), spread(scrape.gzip_latency_ms, 3), ""});
  rows.push_back({"(4) RSS MiB after " + std::to_string(scrapes) + " scrapes",
                  fmt(scrape.rss_mib, 1), "", "<= 16 MiB: " + verdict(scrape.rss_mib, 16)});
  const OwnerScanCost& owners = costs.owner_scan;
  rows.push_back({"(4) attribution: process scan ms, " + std::to_string(owners.processes) +
                      " processes (1000 in 10 pod namespaces)" +
                      (owners.every_pod_found ? "" : ", PODS MISSED"),
                  fmt(owners.ms.median, 3), spread(owners.ms, 3),
                  "<= 100 ms (1/10 of poll_interval): " +
                      verdict(owners.every_pod_found ? owners.ms.median : NAN, 100)});
}

// Rows (5): what the verifier and the JIT left of the programs.
void add_size_rows(std::vector<Row>& rows, const KernelCosts& kernel) {
  rows.push_back({"(5) probe: BPF instructions after the verifier (xlated)",
                  std::to_string(kernel.probe_size.xlated_insns), "", ""});
  rows.push_back({"(5) probe: machine code bytes (jited)",
                  std::to_string(kernel.probe_size.jited_bytes), "", ""});
  rows.push_back({"(5) floor: xlated instructions / jited bytes",
                  std::to_string(kernel.floor_size.xlated_insns) + " / " +
                      std::to_string(kernel.floor_size.jited_bytes),
                  "", ""});
}

// Rows (6): the map memory, computed per layout at the default and the
// largest max_devices, for 2 and 64 CPUs, and the kernel's own figure here.
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
      rows.push_back({what + "hash + array + " + std::to_string(NETIF_RX_DEFAULT_NETNS_BLOCKS) +
                          " x " + std::to_string(NETIF_RX_DEFAULT_NETNS_BLOCK_SLOTS) +
                          " namespace blocks",
                      kib(memory.blocks_layout), "", ""});
    }
  }
  const unsigned here = static_cast<unsigned>(libbpf_num_possible_cpus());
  rows.push_back({"(6) map KiB, max_devices 4096 + blocks, this machine's " + std::to_string(here) +
                      " CPUs: kernel's memlock / computed",
                  kib(measured_blocks_layout_memory(NETIF_RX_DEFAULT_MAX_DEVICES)),
                  kib(computed_map_memory(NETIF_RX_DEFAULT_MAX_DEVICES, here).blocks_layout), ""});
}

std::vector<Row> table_rows(const WallClock& wall, const KernelCosts& kernel, const GroCosts& gro,
                            const Samples& spread_costs, const ExporterCosts& exporter, int scrapes,
                            const std::vector<std::string>& rungs, const DropStormCosts& storm,
                            const NapiCosts& napi) {
  std::vector<Row> rows;
  rows.push_back({"measurement", "median", "p25 .. p75", "goal (ratio side by side)"});
  add_alone_rows(rows, kernel.alone);
  add_together_rows(rows, kernel);
  add_wall_clock_rows(rows, wall);
  add_statistics_rows(rows, wall);
  add_exporter_rows(rows, exporter, scrapes);
  add_size_rows(rows, kernel);
  add_memory_rows(rows);
  add_gro_rows(rows, gro);
  add_spread_rows(rows, spread_costs);
  add_ladder_rows(rows, kernel.alone, kernel.together_ladder, rungs);
  add_drop_storm_rows(rows, storm);
  add_napi_rows(rows, napi);
  return rows;
}

int run(int argc, char** argv) {
  std::vector<char*> benchmark_args;
  const Options options = parse_options(argc, argv, benchmark_args);
  if (options.render_only) {
    int bench_argc = static_cast<int>(benchmark_args.size());
    std::vector<Row> rows{{"measurement", "median", "p25 .. p75", "goal"}};
    add_render_rows(rows, run_render_benchmarks(bench_argc, benchmark_args.data()));
    print_table(rows);
    return 0;
  }
  if (::geteuid() != 0) throw std::runtime_error("the benchmark loads BPF: run it as root");
  if (options.poll_only) {
    std::vector<Row> rows{{"measurement", "median", "p25 .. p75", "goal"}};
    add_poll_rows(rows, poll_times(options.poll_devices, options.poll_rounds));
    print_table(rows);
    return 0;
  }
  if (sysctl_stats_on())
    std::fprintf(stderr,
                 "warning: kernel.bpf_stats_enabled=1: the statistics-off figures include the "
                 "cost of statistics\n");
  // The daemon's own records (probe attached, detached) as the daemon prints them.
  setup_logging("info", LogFormat::logfmt);
  route_libbpf_logs();
  install_cleanup_on_signals();

  std::fprintf(stderr, "setting up the namespaces and the programs...\n");
  WallClock wall;
  KernelCosts kernel;
  GroCosts gro;
  DropStormCosts storm;
  NapiCosts napi;
  std::vector<std::string> rungs;
  if (options.kernel_only) {
    BenchNetwork network;
    const Programs programs(network);
    for (const auto& rung : programs.ladder) rungs.push_back(rung->name());
    kernel = measure_kernel_costs(network, programs, options);
    std::vector<Row> rows{{"measurement", "median", "p25 .. p75", "goal"}};
    add_alone_rows(rows, kernel.alone);
    add_together_rows(rows, kernel);
    add_ladder_rows(rows, kernel.alone, kernel.together_ladder, rungs);
    print_table(rows);
    return 0;
  }
  if (options.receive_path_only) {
    BenchNetwork network;
    const Programs programs(network);
    const int receive_path_rounds = std::min(options.kernel_rounds, kReceivePathRounds);
    storm = measure_drop_storm(network, *programs.ours, *programs.floor, receive_path_rounds);
    network.merge_received_tcp();
    napi = measure_napi_costs(network, *programs.ours, *programs.floor, receive_path_rounds);
    std::vector<Row> rows{{"measurement", "median", "p25 .. p75", "goal"}};
    add_drop_storm_rows(rows, storm);
    add_napi_rows(rows, napi);
    print_table(rows);
    return 0;
  }
  if (options.rounds > 0 || options.kernel_rounds > 0) {
    // Declared after the network, the programs are unloaded before it goes.
    BenchNetwork network;
    const Programs programs(network);
    for (const auto& rung : programs.ladder) rungs.push_back(rung->name());
    wall = measure_wall_clock(network, programs, options);
    kernel = measure_kernel_costs(network, programs, options);
    const int receive_path_rounds = std::min(options.kernel_rounds, kReceivePathRounds);
    storm = measure_drop_storm(network, *programs.ours, *programs.floor, receive_path_rounds);
    // Last: GRO on the receiver moves the UDP bursts to the NAPI path.
    gro = measure_gro_costs(network, programs, options.kernel_rounds);
    napi = measure_napi_costs(network, *programs.ours, *programs.floor, receive_path_rounds);
  }
  const Samples spread_costs = measure_spread_costs(options);
  const ExporterCosts exporter = measure_exporter_costs(benchmark_args, options.scrapes);

  std::printf(
      "\nnetif_rx_exporter benchmark: %d A/B rounds, each configuration the least of 3 bursts of "
      "%d UDP packets (16-byte payload) over a veth pair; %d kernel-statistics rounds\n\n",
      options.rounds, options.packets, options.kernel_rounds);
  print_table(
      table_rows(wall, kernel, gro, spread_costs, exporter, options.scrapes, rungs, storm, napi));
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
