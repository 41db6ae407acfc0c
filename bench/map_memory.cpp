#include "map_memory.h"

#include <bpf/libbpf.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <string>

#include "netif_rx.h"
#include "netif_rx_bpf.skel.h"
#include "probe/netns_blocks.h"

namespace netif_rx::bench {
namespace {

constexpr std::uint64_t kPointer = 8;
constexpr std::uint64_t kHtabElem = 48;  // sizeof(struct htab_elem), x86-64
constexpr std::uint64_t kBucket = 16;    // sizeof(struct bucket)
constexpr std::uint64_t kHtab = 320;     // about sizeof(struct bpf_htab)
constexpr std::uint64_t kArray = 320;    // about sizeof(struct bpf_array)
constexpr std::uint64_t kLockCount = 8;  // HASHTAB_MAP_LOCK_COUNT

std::uint64_t round8(std::uint64_t n) { return (n + 7) / 8 * 8; }

std::uint64_t pow2_at_least(std::uint64_t n) {
  std::uint64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// htab_map_mem_usage, preallocated: per-CPU values hang off each element;
// a plain hash has one extra element per CPU.
std::uint64_t hash_bytes(std::uint64_t entries, std::uint64_t key, std::uint64_t value,
                         unsigned cpus, bool percpu) {
  std::uint64_t bytes = kHtab + kBucket * pow2_at_least(entries) + 4 * cpus * kLockCount;
  if (percpu) {
    bytes += (kHtabElem + round8(key) + kPointer) * entries;
    bytes += round8(value) * cpus * entries;
  } else {
    bytes += (kHtabElem + round8(key) + round8(value)) * (entries + cpus);
    bytes += kPointer * cpus;
  }
  return bytes;
}

// array_map_mem_usage for a per-CPU array.
std::uint64_t percpu_array_bytes(std::uint64_t entries, std::uint64_t value, unsigned cpus) {
  return kArray + kPointer * entries + round8(value) * cpus * entries;
}

// array_map_mem_usage for a plain (not per-CPU, not mmapable) array.
std::uint64_t array_bytes(std::uint64_t entries, std::uint64_t value) {
  return kArray + round8(value) * entries;
}

constexpr std::uint32_t kBlocks = NETIF_RX_DEFAULT_NETNS_BLOCKS;
constexpr std::uint32_t kBlockSlots = NETIF_RX_DEFAULT_NETNS_BLOCK_SLOTS;

std::uint64_t memlock_of(int fd) {
  std::ifstream in("/proc/self/fdinfo/" + std::to_string(fd));
  std::string key;
  std::uint64_t value = 0;
  while (in >> key) {
    if (key == "memlock:" && in >> value) return value;
  }
  return 0;
}

}  // namespace

MapMemory computed_map_memory(std::uint32_t max_devices, unsigned cpus) {
  const std::uint64_t counters = sizeof(netif_rx_counters);
  const std::uint64_t key = sizeof(netif_rx_device_key);
  MapMemory out;
  out.hash_layout = hash_bytes(max_devices, key, counters, cpus, true) +
                    hash_bytes(max_devices, key, sizeof(netif_rx_device_name), cpus, false) +
                    percpu_array_bytes(1, counters, cpus);
  const std::uint32_t slots = std::min<std::uint32_t>(max_devices, NETIF_RX_MAX_HOST_SLOTS);
  out.array_layout = out.hash_layout + percpu_array_bytes(slots, counters, cpus);
  out.blocks_layout = out.array_layout +
                      array_bytes(netns_table_size(kBlocks), sizeof(netif_rx_netns_block)) +
                      percpu_array_bytes(std::uint64_t{kBlocks} * kBlockSlots, counters, cpus);
  return out;
}

std::uint64_t measured_blocks_layout_memory(std::uint32_t max_devices) {
  netif_rx_bpf* skeleton = netif_rx_bpf::open();
  if (!skeleton) throw std::runtime_error("opening the probe failed");
  const std::uint32_t slots = std::min<std::uint32_t>(max_devices, NETIF_RX_MAX_HOST_SLOTS);
  bpf_map__set_max_entries(skeleton->maps.device_counters, max_devices);
  bpf_map__set_max_entries(skeleton->maps.device_names, max_devices);
  bpf_map__set_max_entries(skeleton->maps.host_counters, slots);
  bpf_map__set_max_entries(skeleton->maps.netns_table, netns_table_size(kBlocks));
  bpf_map__set_max_entries(skeleton->maps.netns_slots, kBlocks * kBlockSlots);
  skeleton->rodata->netns_blocks = kBlocks;
  skeleton->rodata->netns_block_slots = kBlockSlots;
  skeleton->rodata->netns_table_mask = netns_table_size(kBlocks) - 1;
  bpf_program__set_autoload(skeleton->progs.netif_rx_tp, false);
  if (netif_rx_bpf::load(skeleton) != 0) {
    netif_rx_bpf::destroy(skeleton);
    throw std::runtime_error("loading the probe failed");
  }
  std::uint64_t total = 0;
  for (bpf_map* map :
       {skeleton->maps.device_counters, skeleton->maps.device_names, skeleton->maps.probe_totals,
        skeleton->maps.host_counters, skeleton->maps.netns_table, skeleton->maps.netns_slots})
    total += memlock_of(bpf_map__fd(map));
  netif_rx_bpf::destroy(skeleton);
  return total;
}

}  // namespace netif_rx::bench
