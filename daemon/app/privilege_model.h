// Which capability, if any, the thread that reads the probe's maps keeps
// after startup, decided by what the running kernel does.
//
// From 5.19 on, bpf(2) commands on descriptors already held (map lookups,
// updates, deletions, object information) need no capability. Before 5.19,
// while kernel.unprivileged_bpf_disabled is non-zero (the default of Debian
// 11, Ubuntu 22.04, RHEL 9, Amazon Linux 2), the kernel refuses every bpf(2)
// command to a caller without CAP_BPF or CAP_SYS_ADMIN. The answer comes from
// a real map read in a thread that holds nothing, not from the version.
#pragma once

#include <optional>
#include <string>

namespace netif_rx {

struct PrivilegeModel {
  // The capability the map thread keeps (CAP_BPF, or CAP_SYS_ADMIN when the
  // process was given that one without CAP_BPF); nullopt: it keeps none.
  std::optional<int> kept;
  // Why, in one line (the errno of the refused read).
  std::string reason;
};

// Reads `map_fd` (any map the probe owns) with bpf(2) from a new thread that
// first gives up every capability, and returns what the map thread must
// keep. Throws std::runtime_error when the read is refused and this process
// holds neither CAP_BPF nor CAP_SYS_ADMIN to keep (it could not have loaded
// the probe), or when the thread-free read fails for another reason.
PrivilegeModel decide_privilege_model(int map_fd);

// The name of a capability as the kernel's headers spell it ("CAP_BPF").
std::string capability_name(int capability);

// One line for the log: what the map thread keeps, and why.
std::string describe(const PrivilegeModel& model);

}  // namespace netif_rx
