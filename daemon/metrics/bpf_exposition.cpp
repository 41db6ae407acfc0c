#include "metrics/bpf_exposition.h"

#include <string>

#include "metrics/metric_family.h"

namespace netif_rx {
namespace {

using prometheus::MetricFamily;
using prometheus::MetricType;

}  // namespace

std::vector<MetricFamily> render_bpf_stats(const BpfStatsSnapshot& stats) {
  if (!stats.valid) return {};

  auto run_time =
      metric_family("netif_rx_bpf_run_time_seconds_total",
                    "Time the kernel spent running the program while BPF statistics were "
                    "enabled (bpf_prog_info.run_time_ns).",
                    MetricType::Counter);
  auto run_count = metric_family("netif_rx_bpf_run_count_total",
                                 "Times the program ran while BPF statistics were enabled "
                                 "(bpf_prog_info.run_cnt).",
                                 MetricType::Counter);
  auto misses = metric_family("netif_rx_bpf_recursion_misses_total",
                              "Runs the kernel skipped because the program was already running on "
                              "that CPU.",
                              MetricType::Counter);
  auto enabled = metric_family("netif_rx_bpf_stats_enabled",
                               "1 while the kernel collects BPF run-time statistics, else 0.",
                               MetricType::Gauge);
  auto info = metric_family("netif_rx_bpf_program_info",
                            "Identity of a loaded program, as bpftool prog show prints it.",
                            MetricType::Gauge);
  auto entries =
      metric_family("netif_rx_bpf_map_entries", "Keys in the map now.", MetricType::Gauge);
  auto max_entries =
      metric_family("netif_rx_bpf_map_max_entries", "Capacity of the map.", MetricType::Gauge);

  for (const BpfProgramStats& program : stats.programs) {
    run_time.metric.push_back(counter_sample({{"program", program.name}},
                                             static_cast<double>(program.run_time_ns) * 1e-9));
    run_count.metric.push_back(
        counter_sample({{"program", program.name}}, static_cast<double>(program.run_count)));
    misses.metric.push_back(
        counter_sample({{"program", program.name}}, static_cast<double>(program.recursion_misses)));
    info.metric.push_back(
        gauge_sample({{"attach_type", std::string(to_string(program.attach_type))},
                      {"id", std::to_string(program.id)},
                      {"program", program.name},
                      {"tag", program.tag}},
                     1));
  }
  enabled.metric.push_back(gauge_sample({}, stats.stats_enabled ? 1 : 0));
  for (const BpfMapStats& map : stats.maps) {
    entries.metric.push_back(gauge_sample({{"map", map.name}}, static_cast<double>(map.entries)));
    max_entries.metric.push_back(
        gauge_sample({{"map", map.name}}, static_cast<double>(map.max_entries)));
  }

  std::vector<MetricFamily> families;
  families.push_back(std::move(run_time));
  families.push_back(std::move(run_count));
  families.push_back(std::move(misses));
  families.push_back(std::move(enabled));
  families.push_back(std::move(info));
  families.push_back(std::move(entries));
  families.push_back(std::move(max_entries));
  return families;
}

}  // namespace netif_rx
