// Packets by RX queue and steered packets as the daemon serves them: read
// from the probe's maps by the poller into each snapshot.
#pragma once

#include <memory>
#include <string>

#include "pipeline/poller.h"
#include "probe/probe.h"
#include "routes/route_reader.h"

namespace netif_rx {

class PollObserver;

// A reader of `probe`'s queue and steering maps (borrowed: the probe must
// outlive it).
std::shared_ptr<RouteReader> route_reader_of(const Probe& probe);

// Whether the kernel's skbs have alloc_cpu (Linux 5.19), by its BTF at
// `btf_path`; without it, logs once that the steering families are left out.
bool steering_counted(const std::string& btf_path);

// The poller's source of queue and steering counts. A failed map read is
// counted in `metrics` as map_read.
RouteSource route_source(std::shared_ptr<RouteReader> reader, bool steering, PollObserver& metrics);

}  // namespace netif_rx
