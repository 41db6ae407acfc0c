// The text under a selected device's bars (`top --device`): its RX queue ->
// CPU matrix and its drops by reason, both per second. Pure.
#pragma once

#include <string>
#include <vector>

#include "top/top_rate_table.h"

namespace netif_rx {

// The lines, without '\n', none wider than `width` columns: a matrix too
// wide for it shows the CPUs that fit and says how many it leaves out.
// What the source cannot show (table.queues_absent, table.drops_absent) is
// said, not drawn as zeros.
std::vector<std::string> device_detail_lines(const RateTable& table, const TopDeviceRows& device,
                                             unsigned width);

}  // namespace netif_rx
