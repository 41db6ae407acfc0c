#include "routes/route_series.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace netif_rx {
namespace {

bool line_order(const RouteLine& a, const RouteLine& b) {
  return std::tie(a.device, a.netns_inum, a.from, a.cpu) <
         std::tie(b.device, b.netns_inum, b.from, b.cpu);
}

// The lines of the counts of exported devices, by device (label, netns).
using DeviceLines = std::map<std::pair<std::string, std::uint32_t>, std::vector<RouteLine>>;

void add_lines(DeviceLines& devices, const std::vector<RouteCount>& counts,
               const PerCpuDeviceLabels& labels) {
  for (const RouteCount& count : counts) {
    const auto label = labels.find(count.device);
    if (label == labels.end()) continue;
    for (std::size_t cpu = 0; cpu < count.per_cpu.size(); ++cpu) {
      if (count.per_cpu[cpu] == 0) continue;
      devices[{label->second, count.device.netns_inum}].push_back(
          {label->second, count.device.netns_inum, count.from, static_cast<std::uint32_t>(cpu),
           count.per_cpu[cpu]});
    }
  }
}

}  // namespace

RouteSnapshot build_route_snapshot(const RouteCounts& counts, const PerCpuDeviceLabels& labels,
                                   std::size_t budget, bool steering) {
  RouteSnapshot out;
  out.attached = true;
  out.steering = steering;
  out.queue_untracked = counts.queue_untracked;
  out.steer_untracked = counts.steer_untracked;
  out.queue_entries = counts.queue_entries;
  out.steer_entries = counts.steer_entries;

  DeviceLines queues;
  DeviceLines steered;
  add_lines(queues, counts.queues, labels);
  if (steering) add_lines(steered, counts.steered, labels);
  std::map<std::pair<std::string, std::uint32_t>, std::size_t> lines;
  for (const auto& [device, device_lines] : queues) lines[device] += device_lines.size();
  for (const auto& [device, device_lines] : steered) lines[device] += device_lines.size();

  const std::size_t fixed = out.series_count();
  std::size_t left = budget > fixed ? budget - fixed : 0;
  for (const auto& [device, count] : lines) {
    if (count > left) {
      ++out.left_out_devices;
      continue;
    }
    left -= count;
    for (DeviceLines* from : {&queues, &steered}) {
      const auto found = from->find(device);
      if (found == from->end()) continue;
      auto& to = from == &queues ? out.queues : out.steered;
      to.insert(to.end(), found->second.begin(), found->second.end());
    }
  }
  std::sort(out.queues.begin(), out.queues.end(), line_order);
  std::sort(out.steered.begin(), out.steered.end(), line_order);
  return out;
}

}  // namespace netif_rx
