// The exporter daemon: load, attach, serve until SIGINT or SIGTERM.
#pragma once

#include "cli/cli.h"

namespace netif_rx {

// Returns the process exit code.
int run_daemon(const CliOptions& cli);

}  // namespace netif_rx
