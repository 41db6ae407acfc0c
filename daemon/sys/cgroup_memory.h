// The memory limit of the cgroup this process runs in: cgroup v2's
// memory.max, or v1's memory.limit_in_bytes (where the memory controller is on
// a v1 hierarchy), the least of its own and its ancestors'. The kernel charges
// BPF maps to it (since Linux 5.11): past it, loading fails or the OOM killer
// ends the process.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace netif_rx {

struct CgroupMemoryLimit {
  std::uint64_t bytes = 0;
  std::string file;  // where the least limit was read
};

// `proc_self_cgroup`: the text of /proc/self/cgroup; `root`: where the cgroup
// file systems are mounted. nullopt: no limit (or none readable).
std::optional<CgroupMemoryLimit> cgroup_memory_limit(const std::string& proc_self_cgroup,
                                                     const std::string& root = "/sys/fs/cgroup");

// The same for this process.
std::optional<CgroupMemoryLimit> own_cgroup_memory_limit();

}  // namespace netif_rx
