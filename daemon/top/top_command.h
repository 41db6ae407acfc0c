// `netif_rx_exporter top`.
#pragma once

#include "cli/cli.h"

namespace netif_rx {

// Returns the process exit code.
int run_top(const CliOptions& cli);

}  // namespace netif_rx
