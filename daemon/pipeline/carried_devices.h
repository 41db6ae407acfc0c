// The counts carried over from a probe of another layout
// (continuity/layout_carry.h), read once when the poller is built, and the last
// counts of a retired namespace block's slots (carry()): added to every
// poll's read, a device's count is its entries in the counting maps and
// here, the totals likewise. A device the poller forgets (gone, stale,
// replaced) leaves here and the map too, its counts moving to the removed
// ones with the rest of its read. Used by the polling thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "pipeline/poll_step.h"
#include "probe/map_reader.h"
#include "probe/probe_maps.h"

namespace netif_rx {

class CarriedDevices {
 public:
  CarriedDevices() = default;

  // Reads the carried maps of `maps` (none there: nothing carried), with
  // `possible_cpus` slots per value. Returns the errors: then nothing is
  // carried.
  std::vector<MapAccessError> load(const ProbeMaps& maps, unsigned possible_cpus);

  std::size_t devices() const { return devices_.size(); }

  // Adds the carried counts to what a poll read.
  void add_to(MapContents& contents) const;

  // The carried counts of `key`; nullptr when there are none.
  const std::vector<netif_rx_counters>* find(const netif_rx_device_key& key) const;

  // Adds `key`'s carried counts to `per_cpu` (its live counts, grown to the
  // carried CPUs). False when it has none.
  bool add_to(const netif_rx_device_key& key, std::vector<netif_rx_counters>& per_cpu) const;

  // Adds `per_cpu` to `key`'s carried counts, here and in the map (so that
  // a restart that adopts the probe keeps them). Errors: nothing was added.
  std::vector<MapAccessError> carry(const netif_rx_device_key& key,
                                    const std::vector<netif_rx_counters>& per_cpu);

  // Forgets `key`'s carried counts, here and in the map; a device without
  // any is fine.
  std::vector<MapAccessError> forget(const netif_rx_device_key& key);

 private:
  std::shared_ptr<BpfMap> map_;
  unsigned possible_cpus_ = 0;  // of the map's values
  std::unordered_map<netif_rx_device_key, std::vector<netif_rx_counters>, DeviceKeyHash> devices_;
  std::vector<std::vector<netif_rx_counters>> totals_;  // by slot of probe_totals
};

}  // namespace netif_rx
