#include "pipeline/route_counting.h"

#include "pipeline/poll_observer.h"
#include "probe/alloc_cpu_support.h"
#include "routes/route_series.h"
#include "util/log.h"

namespace netif_rx {

std::shared_ptr<RouteReader> route_reader_of(const Probe& probe) {
  RouteMaps maps;
  maps.queue_slots = std::make_unique<KernelBpfMap>("queue_slots", probe.queue_slots_fd());
  maps.queue_counters = std::make_unique<KernelBpfMap>("queue_counters", probe.queue_counters_fd());
  maps.steer_counters = std::make_unique<KernelBpfMap>("steer_counters", probe.steer_counters_fd());
  maps.route_totals = std::make_unique<KernelBpfMap>("route_totals", probe.route_totals_fd());
  return std::make_shared<RouteReader>(std::move(maps), probe.host_netns_inum(),
                                       probe.possible_cpus());
}

bool steering_counted(const std::string& btf_path) {
  std::string error;
  const auto found = skb_has_alloc_cpu(btf_path, error);
  if (found && *found) return true;
  log::warn(
      "steered packets are not counted: netif_rx_steered_packets_total is left out",
      {{"why", found ? "the kernel's sk_buff has no alloc_cpu (Linux 5.19 and later)" : error}});
  return false;
}

RouteSource route_source(std::shared_ptr<RouteReader> reader, bool steering,
                         PollObserver& metrics) {
  return [reader = std::move(reader), steering, &metrics](std::size_t budget,
                                                          const PerCpuDeviceLabels& labels) {
    const RouteCounts counts = reader->read();
    for (const MapAccessError& error : counts.errors) {
      log::warn("reading the queue and steering maps failed", {{"err", error.describe()}});
      metrics.count_poll_error("map_read");
    }
    return build_route_snapshot(counts, labels, budget, steering);
  };
}

}  // namespace netif_rx
