// Reads the probe's maps into plain data (no Prometheus types). Errors are
// returned as values naming the map and the operation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "counters/device_counters.h"
#include "netif_rx.h"
#include "probe/bpf_map.h"
#include "probe/netns_blocks.h"
#include "probe/probe_maps.h"

namespace netif_rx {

using DeviceNames = std::unordered_map<netif_rx_device_key, std::string, DeviceKeyHash>;

// Aggregates whose packets the probe could not count exactly, for one reason
// (a fallback slot of probe_totals): how many skbs, per possible CPU.
struct GsoFallbacks {
  const char* reason = "";  // the metric's label: gso_by_frags, unparsed_headers, ...
  std::vector<std::uint64_t> skbs_per_cpu;
};

template <typename T>
struct MapRead {
  T value{};
  std::vector<MapAccessError> errors;
  bool ok() const { return errors.empty(); }
};

class MapReader {
 public:
  // `possible_cpus` sizes the per-CPU values.
  MapReader(ProbeMaps maps, unsigned possible_cpus);

  // True when `key` is counted in the host array rather than the hash.
  bool in_host_array(const netif_rx_device_key& key) const {
    return maps_.host_counters && key.netns_inum == maps_.host_netns_inum &&
           key.ifindex < maps_.host_slots;
  }

  // Slots of the host array (0 without one).
  std::uint32_t host_slots() const { return maps_.host_counters ? maps_.host_slots : 0; }

  // Every entry of the per-device map (batch lookup where the kernel has it).
  MapRead<std::vector<DeviceCounters>> read_device_counters();
  // The host-array slots of `ifindexes` (the own namespace's devices) that
  // have counted packets; ifindexes beyond the array are skipped.
  MapRead<std::vector<DeviceCounters>> read_host_slots(const std::vector<std::uint32_t>& ifindexes);
  // The names the probe recorded, by device.
  MapRead<DeviceNames> read_device_names();
  // The untracked counters, one element per possible CPU.
  MapRead<std::vector<netif_rx_counters>> read_untracked();
  // The probe's own total of counted skbs and packets (tracked or not), per CPU.
  MapRead<std::vector<netif_rx_counters>> read_counted();
  // The counts of removed devices that the daemon keeps in the probe's map
  // (NETIF_RX_SLOT_REMOVED), so that they outlive it with a pinned probe.
  MapRead<std::vector<netif_rx_counters>> read_removed();
  std::vector<MapAccessError> write_removed(const std::vector<netif_rx_counters>& per_cpu);
  // The aggregates the probe could not count exactly, one element per reason.
  MapRead<std::vector<GsoFallbacks>> read_gso_fallbacks();
  // One device's counters (its hash entry or its host-array slot); an empty
  // vector when it has none (a slot that counted nothing).
  MapRead<std::vector<netif_rx_counters>> read_device(const netif_rx_device_key& key);
  // Removes a device from both per-device maps (a missing entry is fine), or
  // zeroes its host-array slot: call it only once the kernel announced the
  // deletion (see bpf/netif_rx.bpf.c). Uses no mutable state of the reader:
  // safe on a copy, from another thread.
  std::vector<MapAccessError> delete_device(const netif_rx_device_key& key);
  // Other namespaces' blocks (see NetnsBlocks): 0 blocks when the probe has
  // none.
  std::uint32_t netns_blocks() const { return maps_.netns_table ? maps_.netns_blocks : 0; }
  std::uint32_t netns_block_slots() const { return maps_.netns_block_slots; }
  std::uint32_t netns_table_size() const { return maps_.netns_table_size; }
  // The probe's netns_table, every entry.
  MapRead<std::vector<netif_rx_netns_block>> read_netns_table();
  std::vector<MapAccessError> write_netns_entry(const NetnsTableWrite& write);
  // The slots of `placed`'s block that counted packets, keyed by device.
  MapRead<std::vector<DeviceCounters>> read_netns_block(const PlacedNetns& placed);
  // Zeroes one slot (a deleted device, a retired block's).
  std::vector<MapAccessError> zero_netns_slot(std::uint32_t block, std::uint32_t ifindex);

  // Removes only a recorded name (one whose counters entry is gone).
  std::vector<MapAccessError> delete_name(const netif_rx_device_key& key);

  // A per-CPU vector of an earlier read that nothing uses any more (a
  // released snapshot's): read_device_counters() fills such vectors before
  // it allocates new ones. At most as many are kept as the last read found.
  void recycle(std::vector<netif_rx_counters>&& per_cpu);

 private:
  MapRead<std::vector<DeviceCounters>> read_counters_one_by_one();
  // A device's per-CPU counters copied from `first` (possible_cpus_ of them),
  // in a recycled vector where there is one.
  std::vector<netif_rx_counters> per_cpu_copy(const netif_rx_counters* first);
  MapRead<std::vector<netif_rx_counters>> read_total_slot(std::uint32_t slot);
  // A block's slots, slot-major then CPU (block_slots x possible_cpus).
  MapRead<std::vector<netif_rx_counters>> read_block_slots(std::uint32_t block);

  ProbeMaps maps_;
  unsigned possible_cpus_;
  bool batch_supported_ = true;        // device_counters
  bool block_batch_supported_ = true;  // netns_slots (per-CPU arrays: 5.13 and later)
  // device_counters' batch read: the entries the last read found, and its
  // buffers, kept between polls.
  std::uint32_t last_device_count_ = 0;
  std::vector<netif_rx_device_key> batch_keys_;
  std::vector<netif_rx_counters> batch_values_;
  std::vector<std::vector<netif_rx_counters>> spare_per_cpu_;  // see recycle()
};

}  // namespace netif_rx
