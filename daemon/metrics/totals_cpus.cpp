#include "metrics/totals_cpus.h"

#include <algorithm>

#include "counters/per_cpu_sum.h"

namespace netif_rx {
namespace {

void add_counted(std::vector<bool>& cpus, const std::vector<netif_rx_counters>& per_cpu) {
  if (cpus.size() < per_cpu.size()) cpus.resize(per_cpu.size());
  for (std::size_t cpu = 0; cpu < per_cpu.size(); ++cpu) {
    if (holds_counts(per_cpu[cpu])) cpus[cpu] = true;
  }
}

}  // namespace

std::vector<unsigned> totals_cpus(const Snapshot& snapshot) {
  std::vector<bool> with_counts;
  add_counted(with_counts, snapshot.untracked_per_cpu);
  add_counted(with_counts, snapshot.removed_per_cpu);
  add_counted(with_counts, snapshot.counted_per_cpu);
  for (const GsoFallbacks& reason : snapshot.gso_fallbacks) {
    if (with_counts.size() < reason.skbs_per_cpu.size())
      with_counts.resize(reason.skbs_per_cpu.size());
    for (std::size_t cpu = 0; cpu < reason.skbs_per_cpu.size(); ++cpu) {
      if (reason.skbs_per_cpu[cpu] != 0) with_counts[cpu] = true;
    }
  }
  std::vector<unsigned> cpus = snapshot.cpus;
  for (std::size_t cpu = 0; cpu < with_counts.size(); ++cpu) {
    if (with_counts[cpu]) cpus.push_back(static_cast<unsigned>(cpu));
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

}  // namespace netif_rx
