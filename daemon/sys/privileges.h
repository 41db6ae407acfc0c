// What the process may do with BPF, from its effective capabilities, and
// giving capabilities up once they are no longer needed.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// True when a task's /proc/<pid>/status text shows it already holds exactly
// `mask` (permitted and effective), nothing inheritable or ambient, and
// no_new_privs: what drop_all_capabilities leaves it with.
bool holds_only(std::string_view status_text, std::uint64_t mask);

// One thread that keeps some capabilities while the others drop them all.
struct KeptCapabilities {
  pid_t thread = 0;        // a thread id (gettid) of this process
  std::uint64_t mask = 0;  // bit N = capability N
};

// Gives up every capability in every thread of the process: permitted,
// effective, inheritable and ambient sets cleared, the bounding set cleared
// where CAP_SETPCAP allows, and no_new_privs set, so that not even an
// execve can bring one back. Threads are reached with a signal (capabilities
// are per thread in Linux) and the result is checked in
// /proc/self/task/*/status. A thread that already holds only its mask is not
// signalled: a signal makes a blocked poll() fail with EINTR whatever
// SA_RESTART says, which cuts a connection in flight in civetweb. Throws
// std::runtime_error when a thread kept one. Each thread of `kept` (at most
// kMaxKeptThreads, never the calling thread) keeps exactly its mask
// (permitted and effective, bounding set reduced to it) and every other
// thread holds none.
inline constexpr std::size_t kMaxKeptThreads = 4;
void drop_all_capabilities(const std::vector<KeptCapabilities>& kept = {});

// Gives up every capability of the calling thread only (the other threads
// keep theirs). Returns 0 or an errno.
int drop_this_thread_capabilities();

// True when the permitted set of the calling thread holds `capability`.
bool has_permitted(int capability);

// For a single-threaded process: keeps only `capability` (permitted and
// effective, bounding set reduced to it), clears the rest, sets
// no_new_privs. Returns 0 or an errno.
int keep_only_capability(int capability);

}  // namespace netif_rx
