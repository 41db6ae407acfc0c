// What the process may do with BPF, from its effective capabilities, and
// giving capabilities up once they are no longer needed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

// The five capability sets of a task, as /proc/<pid>/status lists them.
struct CapabilitySets {
  std::uint64_t inheritable = 0;
  std::uint64_t permitted = 0;
  std::uint64_t effective = 0;
  std::uint64_t bounding = 0;
  std::uint64_t ambient = 0;
};
// Parses the Cap* lines of a /proc/<pid>/status text; nullopt when one of
// CapInh, CapPrm, CapEff is missing.
std::optional<CapabilitySets> parse_capability_sets(std::string_view status_text);

// Gives up every capability in every thread of the process: permitted,
// effective, inheritable and ambient sets cleared, the bounding set cleared
// where CAP_SETPCAP allows, and no_new_privs set, so that not even an
// execve can bring one back. Threads are reached with a signal (capabilities
// are per thread in Linux) and the result is checked in
// /proc/self/task/*/status. Throws std::runtime_error when a thread kept one.
void drop_all_capabilities();

// For a single-threaded process: keeps only `capability` (permitted and
// effective, bounding set reduced to it), clears the rest, sets
// no_new_privs. Returns 0 or an errno.
int keep_only_capability(int capability);

}  // namespace netif_rx
