// The drop families written as exposition text straight from a snapshot:
// netif_rx_backlog_drops_total when backlog drops are known, then
// netif_rx_drops_total and netif_rx_untracked_drops_total when the drop
// counter is attached.
#pragma once

#include <string>

#include "drops/drops_snapshot.h"
#include "metrics/exposition.h"

namespace netif_rx {

void write_drops_text(std::string& out, const DropsSnapshot& drops, const RenderOptions& options);

}  // namespace netif_rx
