// netif_rx_netns_info: who owns each namespace of the snapshot, from the
// attribution's latest table, and the attribution's own counts. Pure.
#pragma once

#include <prometheus/metric_family.h>

#include <string>
#include <vector>

#include "owners/netns_info_table.h"
#include "pipeline/snapshot.h"

namespace netif_rx {

// One netif_rx_netns_info series per inode number of the snapshot's devices:
// its newest namespace's (netns_salt_is_newer), when the table resolved
// exactly that namespace (inode and salt); empty labels are left out. Then
// the attribution's own families.
std::vector<prometheus::MetricFamily> render_netns_info(const Snapshot& snapshot,
                                                        const NetnsInfoTable& table);

// The same as text appended to `out`: netif_rx_netns_info written directly,
// the attribution's few families through prometheus-cpp.
void write_netns_info_text(std::string& out, const Snapshot& snapshot, const NetnsInfoTable& table);

}  // namespace netif_rx
