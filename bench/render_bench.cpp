#include "render_bench.h"

#include <benchmark/benchmark.h>

#include <cstdio>

#include "metrics/snapshot_exposition.h"
#include "web/gzip_body.h"

namespace netif_rx::bench {
namespace {

class MedianCapture : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Aggregate || run.aggregate_name != "median") continue;
      const std::string name = run.benchmark_name();
      const auto slash = name.find('/');
      auto& medians = name.rfind("render_serialize_gzip", 0) == 0 ? times.gzip : times.plain;
      medians[std::stoi(name.substr(slash + 1))] = run.GetAdjustedRealTime();
    }
  }
  RenderTimes times;
};

template <bool kGzip>
void render_and_serialize(benchmark::State& state) {
  const Snapshot snapshot = synthetic_snapshot(static_cast<int>(state.range(0)));
  const RenderOptions options{true, false};
  std::size_t bytes = 0;
  for (auto _ : state) {
    // As /metrics writes the snapshot's part (web/http_handlers.cpp).
    std::string text;
    write_snapshot_exposition(text, snapshot, options, nullptr);
    if constexpr (kGzip) text = gzip_compress(text);
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}

}  // namespace

Snapshot synthetic_snapshot(int series) {
  Snapshot snapshot;
  snapshot.cpus = {0, 1};
  snapshot.untracked_per_cpu.resize(2);
  const int devices = series / 2;
  for (int i = 0; i < devices; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "veth%06d", i);
    snapshot.devices.push_back(
        {{4026531840U, static_cast<std::uint32_t>(i + 1), 0},
         name,
         {{123456789ULL + static_cast<unsigned>(i), 0, 987654321012ULL}, {42, 0, 4200}}});
  }
  snapshot.bpf.valid = true;
  snapshot.bpf.programs.push_back(
      {"netif_rx_btf", 1, "0123456789abcdef", AttachMode::tp_btf, 1, 1, 0});
  snapshot.bpf.maps = {{"device_counters", static_cast<std::uint64_t>(devices), 1U << 20},
                       {"device_names", static_cast<std::uint64_t>(devices), 1U << 20},
                       {"probe_totals", 1, 1}};
  return snapshot;
}

RenderTimes run_render_benchmarks(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  for (auto* registered :
       {benchmark::RegisterBenchmark("render_serialize", render_and_serialize<false>),
        benchmark::RegisterBenchmark("render_serialize_gzip", render_and_serialize<true>)}) {
    registered->Arg(1000)
        ->Arg(100000)
        ->Unit(benchmark::kMillisecond)
        ->Repetitions(15)
        ->ReportAggregatesOnly(true);
  }
  MedianCapture capture;
  benchmark::RunSpecifiedBenchmarks(&capture);
  return capture.times;
}

}  // namespace netif_rx::bench
