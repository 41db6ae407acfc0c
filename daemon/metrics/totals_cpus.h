// The CPUs the totals families (untracked, removed, counted, fallbacks) are
// exported by, with per_cpu.devices: all.
#pragma once

#include <vector>

#include "pipeline/snapshot.h"

namespace netif_rx {

// Every present CPU (snapshot.cpus: its line is there from the start, zero
// until it counts), and every other CPU on which a total holds counts: a
// CPU that left keeps its lines while they hold counts, so that no counter
// goes down or away when a CPU is unplugged. Sorted.
std::vector<unsigned> totals_cpus(const Snapshot& snapshot);

}  // namespace netif_rx
