// The queue and steering families written as exposition text straight from a
// snapshot: netif_rx_queue_packets_total{device,queue,cpu},
// netif_rx_queue_untracked_packets_total, and where the kernel has alloc_cpu
// netif_rx_steered_packets_total{device,cpu,from_cpu} and
// netif_rx_steered_untracked_packets_total.
#pragma once

#include <string>

#include "metrics/exposition.h"
#include "routes/route_snapshot.h"

namespace netif_rx {

void write_route_text(std::string& out, const RouteSnapshot& routes, const RenderOptions& options);

}  // namespace netif_rx
