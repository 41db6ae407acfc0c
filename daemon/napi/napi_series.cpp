#include "napi/napi_series.h"

#include <algorithm>
#include <tuple>

namespace netif_rx {
namespace {

NapiPolls polls_of(const netif_rx_napi_counters& counters) {
  return {counters.polls, counters.packets, counters.exhausted};
}

// Three lines (polls, packets, exhausted) per CPU that polled.
std::size_t lines_of(const std::vector<NapiPolls>& per_cpu) {
  std::size_t lines = 0;
  for (const NapiPolls& cpu : per_cpu) lines += cpu.polls != 0 ? 3 : 0;
  return lines;
}

}  // namespace

std::size_t NapiSnapshot::series_count() const {
  // netif_rx_napi_untracked_polls_total is one series while attached.
  std::size_t count = lines_of(backlog_per_cpu) + (attached ? 1 : 0);
  for (const NapiDeviceSeries& device : devices) count += lines_of(device.per_cpu);
  return count;
}

NapiSnapshot build_napi_snapshot(const NapiCounts& counts, const PerCpuDeviceLabels& labels,
                                 std::size_t budget) {
  NapiSnapshot out;
  out.attached = true;
  for (const netif_rx_napi_counters& cpu : counts.backlog_per_cpu)
    out.backlog_per_cpu.push_back(polls_of(cpu));
  for (const netif_rx_napi_counters& cpu : counts.untracked_per_cpu) {
    out.untracked.polls += cpu.polls;
    out.untracked.packets += cpu.packets;
    out.untracked.exhausted += cpu.exhausted;
  }

  std::vector<NapiDeviceSeries> all;
  for (const NapiEntry& entry : counts.entries) {
    const auto label = labels.find(entry.key);
    if (label == labels.end()) continue;
    NapiDeviceSeries series;
    series.device = label->second;
    series.netns_inum = entry.key.netns_inum;
    for (const netif_rx_napi_counters& cpu : entry.per_cpu) series.per_cpu.push_back(polls_of(cpu));
    if (lines_of(series.per_cpu) == 0) continue;
    all.push_back(std::move(series));
  }
  std::sort(all.begin(), all.end(), [](const NapiDeviceSeries& a, const NapiDeviceSeries& b) {
    return std::tie(a.device, a.netns_inum) < std::tie(b.device, b.netns_inum);
  });

  const std::size_t fixed = out.series_count();
  std::size_t left = budget > fixed ? budget - fixed : 0;
  for (NapiDeviceSeries& series : all) {
    const std::size_t lines = lines_of(series.per_cpu);
    if (lines > left) {
      ++out.left_out_devices;
      continue;
    }
    left -= lines;
    out.devices.push_back(std::move(series));
  }
  return out;
}

}  // namespace netif_rx
