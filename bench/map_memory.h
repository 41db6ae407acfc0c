// The kernel memory of the probe's maps per layout, computed with the
// kernel's own accounting (the map_mem_usage of kernel/bpf/arraymap.c and
// hashtab.c, shown as `memlock` in /proc/PID/fdinfo), and checked against
// that figure for a probe loaded on this machine.
#pragma once

#include <cstdint>

namespace netif_rx::bench {

struct MapMemory {
  std::uint64_t hash_layout = 0;   // device_counters + device_names + probe_totals
  std::uint64_t array_layout = 0;  // the same plus host_counters
  // The same plus the namespaces' blocks at their defaults (namespaces: all):
  // netns_table and netns_slots.
  std::uint64_t blocks_layout = 0;
};

// Computed for `cpus` possible CPUs.
MapMemory computed_map_memory(std::uint32_t max_devices, unsigned cpus);

// The kernel's own `memlock` figures summed over the maps of a probe loaded
// (not attached) with `max_devices` and the default namespace blocks on this
// machine: what blocks_layout computes.
std::uint64_t measured_blocks_layout_memory(std::uint32_t max_devices);

}  // namespace netif_rx::bench
