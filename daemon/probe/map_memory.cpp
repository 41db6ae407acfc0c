#include "probe/map_memory.h"

#include "netif_rx.h"
#include "probe/netns_blocks.h"

namespace netif_rx {
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

}  // namespace

MapMemory counting_map_memory(const CountingMapShape& shape, unsigned cpus) {
  const std::uint64_t counters = sizeof(netif_rx_counters);
  const std::uint64_t key = sizeof(netif_rx_device_key);
  MapMemory out;
  out.hash_layout = hash_bytes(shape.max_devices, key, counters, cpus, true) +
                    hash_bytes(shape.max_devices, key, sizeof(netif_rx_device_name), cpus, false) +
                    percpu_array_bytes(NETIF_RX_PROBE_TOTALS_SLOTS, counters, cpus);
  out.array_layout = out.hash_layout;
  if (shape.host_slots > 0)
    out.array_layout += percpu_array_bytes(shape.host_slots, counters, cpus);
  out.counting = out.array_layout;
  if (shape.netns_blocks > 0) {
    out.counting +=
        array_bytes(netns_table_size(shape.netns_blocks), sizeof(netif_rx_netns_block)) +
        percpu_array_bytes(std::uint64_t{shape.netns_blocks} * shape.netns_block_slots, counters,
                           cpus);
  }
  return out;
}

std::uint64_t drop_map_memory(unsigned cpus) {
  return hash_bytes(NETIF_RX_MAX_DROP_ENTRIES, sizeof(netif_rx_drop_key), sizeof(std::uint64_t),
                    cpus, true) +
         hash_bytes(NETIF_RX_MAX_DROP_ENTRIES, sizeof(netif_rx_device_key),
                    sizeof(netif_rx_device_name), cpus, false) +
         percpu_array_bytes(NETIF_RX_DROP_TOTALS_SLOTS, sizeof(std::uint64_t), cpus);
}

std::uint64_t napi_map_memory(unsigned cpus) {
  return hash_bytes(NETIF_RX_MAX_NAPI_ENTRIES, sizeof(netif_rx_device_key),
                    sizeof(netif_rx_napi_counters), cpus, true) +
         percpu_array_bytes(NETIF_RX_NAPI_TOTALS_SLOTS, sizeof(netif_rx_napi_counters), cpus);
}

std::uint64_t route_map_memory(unsigned cpus) {
  return array_bytes(std::uint64_t{cpus} * NETIF_RX_QUEUE_SLOTS, sizeof(netif_rx_queue_slot)) +
         hash_bytes(NETIF_RX_MAX_QUEUE_ENTRIES, sizeof(netif_rx_queue_key), sizeof(std::uint64_t),
                    cpus, true) +
         hash_bytes(NETIF_RX_MAX_STEER_ENTRIES, sizeof(netif_rx_steer_key), sizeof(std::uint64_t),
                    cpus, true) +
         percpu_array_bytes(NETIF_RX_ROUTE_TOTALS_SLOTS, sizeof(std::uint64_t), cpus);
}

}  // namespace netif_rx
