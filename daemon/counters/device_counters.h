// A device's per-CPU counters as the probe's maps hold them, keyed as the
// probe keys devices: the plain data that reading the maps, carrying them
// across restarts and the pipeline share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "netif_rx.h"

// Global, beside the struct, so that argument-dependent lookup finds it.
inline bool operator==(const netif_rx_device_key& a, const netif_rx_device_key& b) {
  return a.netns_inum == b.netns_inum && a.ifindex == b.ifindex && a.netns_salt == b.netns_salt;
}

namespace netif_rx {

struct DeviceKeyHash {
  std::size_t operator()(const netif_rx_device_key& key) const {
    const std::uint64_t words =
        (static_cast<std::uint64_t>(key.netns_inum) << 32 | key.ifindex) ^ key.netns_salt;
    return words * 0x9E3779B97F4A7C15ULL;
  }
};

// One device's counters, one element per possible CPU (index = CPU number).
struct DeviceCounters {
  netif_rx_device_key key{};
  std::vector<netif_rx_counters> per_cpu;
};

// Per-CPU counters, one element per possible CPU.
using PerCpuCounters = std::vector<netif_rx_counters>;

}  // namespace netif_rx
