// The namespace attribution's process scan over real processes: 1,000
// sleeping children in 10 network namespaces of their own, each in a
// kubelet-shaped cgroup (kubepods/burstable/pod<uid>/c under a subtree of
// the first cgroup2 mount), beside the machine's own processes.
#pragma once

#include <cstddef>

#include "stats.h"

namespace netif_rx::bench {

struct OwnerScanCost {
  Summary ms;                    // one scan_processes() over /proc
  std::size_t processes = 0;     // processes the last scan read
  bool every_pod_found = false;  // each of the 10 namespaces named by its pod's UID
};

// Throws std::runtime_error when the processes can't be set up (no cgroup2,
// no permission). The processes and cgroups go before it returns.
OwnerScanCost owner_scan_cost(int runs);

}  // namespace netif_rx::bench
