// Whether what a configuration asks for fits under the memory cgroup's
// limit: the kernel charges the BPF maps (preallocated, at their capacity) to
// the cgroup of the process that creates them, on top of the exporter's own
// memory. Past the limit the maps fail to load or the OOM killer ends the
// exporter, and a restart loop follows; refusing at the start names the
// figure instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "config/config.h"
#include "sys/cgroup_memory.h"

namespace netif_rx {

// What the exporter needs besides its maps: its resident memory at the
// largest figure measured (about 23 MiB), with room for scrapes.
constexpr std::uint64_t kExporterOwnBytes = 32ULL << 20;

struct MemoryNeed {
  std::uint64_t maps = 0;  // the receive probe's, the drop and NAPI counters'
  std::uint64_t exporter = kExporterOwnBytes;
  std::uint64_t total() const { return maps + exporter; }
};

MemoryNeed memory_need(const Config& config, unsigned possible_cpus);

// A one-line error when the need does not fit under `limit`; nullopt when it
// does, or when there is no limit.
std::optional<std::string> memory_budget_problem(const Config& config, unsigned possible_cpus,
                                                 const std::optional<CgroupMemoryLimit>& limit);

// The same for this process and machine: throws std::runtime_error with the
// one-line problem.
void refuse_unless_memory_fits(const Config& config);

}  // namespace netif_rx
