// `top --device NAME`: the rate table narrowed to one device, with its RX
// queue -> CPU matrix. Pure.
#pragma once

#include <string>

#include "top/top_rate_table.h"
#include "top/top_reading.h"

namespace netif_rx {

// Keeps the devices of `table` named `name` (one per namespace when the
// namespaces are labelled), sets table.device, and, when the source has
// queues, gives each kept device its matrix from `before` to `after` (empty
// for a device whose driver records no queue).
void select_device(RateTable& table, const TopReading& before, const TopReading& after,
                   const std::string& name);

}  // namespace netif_rx
