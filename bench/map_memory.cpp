#include "map_memory.h"

#include <bpf/libbpf.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <string>

#include "netif_rx.h"
#include "netif_rx_bpf.skel.h"
#include "probe/map_memory.h"
#include "probe/netns_blocks.h"

namespace netif_rx::bench {
namespace {

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
  CountingMapShape shape;
  shape.max_devices = max_devices;
  shape.host_slots = std::min<std::uint32_t>(max_devices, NETIF_RX_MAX_HOST_SLOTS);
  shape.netns_blocks = kBlocks;
  shape.netns_block_slots = kBlockSlots;
  const netif_rx::MapMemory computed = counting_map_memory(shape, cpus);
  return {computed.hash_layout, computed.array_layout, computed.counting};
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
