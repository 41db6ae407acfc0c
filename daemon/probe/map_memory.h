// The kernel memory of the exporter's BPF maps, computed with the kernel's
// own accounting (map_mem_usage of kernel/bpf/arraymap.c and hashtab.c, shown
// as `memlock` in /proc/PID/fdinfo): what the memory cgroup is charged when
// they are created. Preallocated maps: the figure holds from the start.
#pragma once

#include <cstdint>

namespace netif_rx {

struct CountingMapShape {
  std::uint32_t max_devices = 0;
  std::uint32_t host_slots = 0;    // the own namespace's array (0: none)
  std::uint32_t netns_blocks = 0;  // other namespaces' blocks (0: none)
  std::uint32_t netns_block_slots = 0;
};

struct MapMemory {
  std::uint64_t hash_layout = 0;   // device_counters + device_names + probe_totals
  std::uint64_t array_layout = 0;  // the same plus host_counters
  std::uint64_t counting = 0;      // the same plus the blocks of `shape`
};

// The receive probe's maps for `cpus` possible CPUs.
MapMemory counting_map_memory(const CountingMapShape& shape, unsigned cpus);

// The drop counter's maps and the NAPI poll counter's (fixed capacities).
std::uint64_t drop_map_memory(unsigned cpus);
std::uint64_t napi_map_memory(unsigned cpus);
// The receive probe's queue and steering maps (fixed capacities, and
// NETIF_RX_QUEUE_SLOTS per CPU).
std::uint64_t route_map_memory(unsigned cpus);

}  // namespace netif_rx
