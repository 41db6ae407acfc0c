// Pod UIDs by network namespace, from the processes of a proc tree:
// /proc/<pid>/ns/net (the namespace's inode and id) and /proc/<pid>/cgroup (the pod
// UID anywhere in its paths, else a podman container's id). Bounded: at most
// `max_processes` are read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "owners/netns_ids.h"

namespace netif_rx {

inline constexpr std::size_t kMaxLibpodIdsPerNetns = 8;

struct ProcessScan {
  // Namespace inode → the distinct pod UIDs of its processes (at most two are
  // kept: two mean the namespace is ambiguous).
  std::map<std::uint32_t, std::vector<std::string>> pod_uids;
  // Namespace inode → the distinct podman container ids of its processes
  // that belong to no pod (at most kMaxLibpodIdsPerNetns).
  std::map<std::uint32_t, std::vector<std::string>> libpod_ids;
  NetnsIds ids;                // the namespace ids of the files read (Linux >= 6.18)
  std::size_t processes = 0;   // processes whose namespace was read
  std::size_t unreadable = 0;  // ns/net could not be read (no permission, or gone)
  std::size_t dropped = 0;     // processes beyond max_processes
};

// Scans `proc_root` (e.g. "/proc"). Processes of `host_inum` are not asked
// for their cgroup: the host's namespace is never a pod's.
ProcessScan scan_processes(const std::string& proc_root, std::uint32_t host_inum,
                           std::size_t max_processes);

}  // namespace netif_rx
