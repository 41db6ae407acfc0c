#include "app/memory_budget.h"

#include <bpf/libbpf.h>

#include <algorithm>
#include <stdexcept>

#include "netif_rx.h"
#include "probe/map_memory.h"

namespace netif_rx {
namespace {

std::string mib(std::uint64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20); }

}  // namespace

MemoryNeed memory_need(const Config& config, unsigned possible_cpus) {
  CountingMapShape shape;
  shape.max_devices = config.max_devices;
  shape.host_slots = std::min<std::uint32_t>(config.max_devices, NETIF_RX_MAX_HOST_SLOTS);
  if (config.namespaces == NamespaceMode::all) {
    shape.netns_blocks = config.netns_blocks;
    shape.netns_block_slots = config.netns_block_slots;
  }
  MemoryNeed need;
  need.maps = counting_map_memory(shape, possible_cpus).counting + drop_map_memory(possible_cpus) +
              napi_map_memory(possible_cpus) + route_map_memory(possible_cpus);
  return need;
}

std::optional<std::string> memory_budget_problem(const Config& config, unsigned possible_cpus,
                                                 const std::optional<CgroupMemoryLimit>& limit) {
  if (!limit) return std::nullopt;
  const MemoryNeed need = memory_need(config, possible_cpus);
  if (need.total() <= limit->bytes) return std::nullopt;
  return "the memory cgroup's limit, " + mib(limit->bytes) + " MiB (" + limit->file +
         "), is below what this configuration needs: about " + mib(need.total()) +
         " MiB (the BPF maps for max_devices=" + std::to_string(config.max_devices) + " at " +
         std::to_string(possible_cpus) + " possible CPUs: " + mib(need.maps) +
         " MiB, charged to the cgroup; the exporter: " + mib(need.exporter) +
         " MiB); raise the limit (Helm: resources.limits.memory; systemd: MemoryMax=) or lower "
         "max_devices";
}

void refuse_unless_memory_fits(const Config& config) {
  const int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) return;  // loading the probe says why
  if (const auto problem =
          memory_budget_problem(config, static_cast<unsigned>(cpus), own_cgroup_memory_limit()))
    throw std::runtime_error(*problem);
}

}  // namespace netif_rx
