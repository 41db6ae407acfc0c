// `netif_rx_exporter check`.
#pragma once

#include "cli/cli.h"

namespace netif_rx {

// Returns the process exit code.
int run_check(const CliOptions& cli);

}  // namespace netif_rx
