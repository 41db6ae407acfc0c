#include "continuity/carried_counts.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "counters/per_cpu_sum.h"

namespace netif_rx {
namespace {

struct KeyOrder {
  bool operator()(const netif_rx_device_key& a, const netif_rx_device_key& b) const {
    return std::tie(a.netns_inum, a.netns_salt, a.ifindex) <
           std::tie(b.netns_inum, b.netns_salt, b.ifindex);
  }
};

// The namespace of each block that a valid table entry names.
std::map<std::uint32_t, netif_rx_netns_block> blocks_in_use(const PreviousCounts& previous,
                                                            const PreviousSettings& settings) {
  std::map<std::uint32_t, netif_rx_netns_block> owners;
  for (const auto& entry : previous.netns_table) {
    if (entry.netns_inum == 0 || entry.block >= settings.netns_blocks) continue;
    if (entry.check !=
        netif_rx_netns_block_check(entry.netns_inum, entry.netns_salt, entry.block)) {
      continue;  // stray: its block's counts are drained below
    }
    owners.emplace(entry.block, entry);
  }
  return owners;
}

}  // namespace

CarriedCounts carry_counts(const PreviousCounts& previous, const PreviousSettings& settings,
                           std::size_t capacity, unsigned possible_cpus) {
  CarriedCounts carried;
  carried.totals.assign(NETIF_RX_PROBE_TOTALS_SLOTS, PerCpuCounters(possible_cpus));
  PerCpuCounters& removed = carried.totals[NETIF_RX_SLOT_REMOVED];

  std::map<netif_rx_device_key, PerCpuCounters, KeyOrder> devices;
  const auto add_device = [&](const netif_rx_device_key& key, const PerCpuCounters& per_cpu) {
    auto [found, fresh] = devices.try_emplace(key, PerCpuCounters(possible_cpus));
    (void)fresh;
    add_per_cpu(found->second, per_cpu);
  };
  for (const auto& device : previous.device_counters) add_device(device.key, device.per_cpu);
  for (const auto& device : previous.carried_counters) add_device(device.key, device.per_cpu);
  for (const auto& [ifindex, per_cpu] : previous.host_slots) {
    add_device({settings.host_netns_inum, ifindex, 0}, per_cpu);  // own namespace: salt 0
  }
  const auto owners = blocks_in_use(previous, settings);
  const std::uint32_t block_slots = std::max<std::uint32_t>(settings.netns_block_slots, 1);
  for (const auto& [slot, per_cpu] : previous.netns_slots) {
    const std::uint32_t ifindex = slot % block_slots;
    const auto owner = owners.find(slot / block_slots);
    if (owner == owners.end() || ifindex == 0) {
      add_per_cpu(removed, per_cpu);  // a retired block not drained yet
      ++carried.slots_without_device;
      continue;
    }
    add_device({owner->second.netns_inum, ifindex, owner->second.netns_salt}, per_cpu);
  }

  for (const auto* totals : {&previous.totals, &previous.carried_totals}) {
    for (std::size_t slot = 0; slot < totals->size() && slot < carried.totals.size(); ++slot)
      add_per_cpu(carried.totals[slot], (*totals)[slot]);
  }
  drop_handover_marks(carried.totals[NETIF_RX_SLOT_COUNTED]);

  carried.devices.reserve(std::min(devices.size(), capacity));
  for (auto& [key, per_cpu] : devices) {
    if (carried.devices.size() >= capacity) {
      add_per_cpu(removed, per_cpu);
      ++carried.devices_over_capacity;
      continue;
    }
    carried.devices.push_back({key, std::move(per_cpu)});
  }
  return carried;
}

}  // namespace netif_rx
