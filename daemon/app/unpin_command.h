// `netif_rx_exporter unpin --bpf.pin-path=DIR`: removes the probe pinned
// there, so that it detaches (continuity/pin_removal.h). For an uninstall: the
// package's prerm, the chart's documented cleanup.
#pragma once

#include "cli/cli.h"

namespace netif_rx {

// Returns the process exit code: 0 when nothing is pinned there any more
// (removed, or nothing was), 1 when the pins stay (an exporter runs on them,
// not a BPF filesystem, a pin that cannot be removed).
int run_unpin(const CliOptions& cli);

}  // namespace netif_rx
