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
};

// Computed for `cpus` possible CPUs.
MapMemory computed_map_memory(std::uint32_t max_devices, unsigned cpus);

// The kernel's own `memlock` figures summed over the maps of a probe loaded
// (not attached) with `max_devices` on this machine.
std::uint64_t measured_array_layout_memory(std::uint32_t max_devices);

}  // namespace netif_rx::bench
