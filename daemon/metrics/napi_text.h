// The NAPI families written as exposition text straight from a snapshot,
// when the NAPI poll counter is attached: netif_rx_napi_polls_total,
// netif_rx_napi_polled_packets_total, netif_rx_napi_budget_exhausted_total
// (per device of the per-CPU class and CPU), the backlog's three by CPU and
// netif_rx_napi_untracked_polls_total.
#pragma once

#include <string>

#include "metrics/exposition.h"
#include "napi/napi_snapshot.h"

namespace netif_rx {

void write_napi_text(std::string& out, const NapiSnapshot& napi, const RenderOptions& options);

}  // namespace netif_rx
