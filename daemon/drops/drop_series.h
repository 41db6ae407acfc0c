// From the drop counter's maps as read to the drops a scrape serves: a pure
// step (no syscalls), unit-tested.
#pragma once

#include <cstddef>

#include "drops/drop_reader.h"
#include "drops/drop_reasons.h"
#include "drops/drops_snapshot.h"

namespace netif_rx {

// Sums each entry over CPUs, names its device (the name recorded at its
// first drop, as a label value; "(ifindex N)" when none was recorded) and
// its reason; leaves out zeros. When the series would pass `budget` (what
// max_series leaves after the other data families), whole devices, the last
// in the order, fold into one series per reason. Backlog drops by CPU are
// never folded and count against the budget first. Devices whose recorded
// name `exported` (when set) refuses are left out, as the data families
// leave them out; their backlog drops stay in the CPUs' counts.
DropsSnapshot build_drops_snapshot(const DropCounts& counts, const DropReasonTable& reasons,
                                   std::size_t budget, const DeviceExported& exported = {});

}  // namespace netif_rx
