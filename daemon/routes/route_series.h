// From the queue and steering maps as read to the series a scrape serves: a
// pure step (no syscalls), unit-tested.
#pragma once

#include <cstddef>

#include "napi/napi_series.h"
#include "routes/route_reader.h"
#include "routes/route_snapshot.h"

namespace netif_rx {

// Keeps the counts of the devices in `labels` (the per-CPU class: other
// devices are counted by the probe but not exported), named as there, one
// line per (queue or CPU that built them, CPU that processed them) that
// counted. `steering`: the kernel has alloc_cpu, the steering families are
// served. The untracked series count against `budget` first (what
// max_series leaves after the other families); then whole devices in name
// order, each with its queue and steering lines; a device whose lines would
// pass what is left is left out whole (counted in left_out_devices).
RouteSnapshot build_route_snapshot(const RouteCounts& counts, const PerCpuDeviceLabels& labels,
                                   std::size_t budget, bool steering);

}  // namespace netif_rx
