// What the process may do with BPF, from its effective capabilities.
#pragma once

#include <string>

namespace netif_rx {

// True when the effective set allows loading and attaching the probe:
// CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN.
bool can_load_bpf();

// True when the effective set holds CAP_SYS_ADMIN (needed to enable the
// kernel's BPF run-time statistics).
bool can_enable_bpf_stats();

// The capability sets of this process as /proc/self/status shows them,
// e.g. "CapEff=0000000000000000 CapPrm=... ".
std::string describe_capabilities();

}  // namespace netif_rx
