#include "pipeline/carried_devices.h"

#include <algorithm>
#include <cerrno>
#include <unordered_set>

#include "counters/per_cpu_sum.h"

namespace netif_rx {

std::vector<MapAccessError> CarriedDevices::load(const ProbeMaps& maps, unsigned possible_cpus) {
  devices_.clear();
  totals_.clear();
  map_ = maps.carried_counters;
  possible_cpus_ = possible_cpus;
  std::vector<MapAccessError> errors;
  if (maps.carried_counters) {
    netif_rx_device_key key{};
    netif_rx_device_key next{};
    bool first = true;
    // Written once before the poller is built, never by a program: the walk
    // sees every entry once.
    while (maps.carried_counters->next_key(first ? nullptr : &key, &next) == 0) {
      first = false;
      key = next;
      std::vector<netif_rx_counters> per_cpu(possible_cpus);
      if (const int err = maps.carried_counters->lookup(&key, per_cpu.data()); err != 0) {
        if (err != ENOENT) errors.push_back(maps.carried_counters->error("lookup_elem", err));
        continue;
      }
      devices_.emplace(key, std::move(per_cpu));
    }
  }
  if (maps.carried_totals) {
    for (std::uint32_t slot = 0; slot < NETIF_RX_PROBE_TOTALS_SLOTS; ++slot) {
      std::vector<netif_rx_counters> per_cpu(possible_cpus);
      if (const int err = maps.carried_totals->lookup(&slot, per_cpu.data()); err != 0) {
        errors.push_back(maps.carried_totals->error("lookup_elem", err));
        continue;
      }
      totals_.push_back(std::move(per_cpu));
    }
  }
  if (!errors.empty()) {
    // Not shown, and the map left as it is: what it holds was not read, so
    // carry() and forget() would change it blind.
    devices_.clear();
    totals_.clear();
    map_.reset();
  }
  if (std::none_of(totals_.begin(), totals_.end(), counted_anything)) totals_.clear();
  return errors;
}

void CarriedDevices::add_to(MapContents& contents) const {
  if (totals_.size() == NETIF_RX_PROBE_TOTALS_SLOTS) {
    add_per_cpu(contents.counted_per_cpu, totals_[NETIF_RX_SLOT_COUNTED]);
    add_per_cpu(contents.untracked_per_cpu, totals_[NETIF_RX_SLOT_UNTRACKED]);
    // The fallbacks, in the order of their slots (MapReader::read_gso_fallbacks).
    for (std::size_t i = 0; i < contents.gso_fallbacks.size(); ++i) {
      const std::size_t slot = NETIF_RX_SLOT_FALLBACK_GSO_BY_FRAGS + i;
      if (slot >= NETIF_RX_SLOT_REMOVED) break;
      auto& skbs = contents.gso_fallbacks[i].skbs_per_cpu;
      const auto& carried = totals_[slot];
      if (skbs.size() < carried.size()) skbs.resize(carried.size());
      for (std::size_t cpu = 0; cpu < carried.size(); ++cpu) skbs[cpu] += carried[cpu].skbs;
    }
  }
  if (devices_.empty()) return;
  std::unordered_set<netif_rx_device_key, DeviceKeyHash> matched;
  matched.reserve(devices_.size());
  for (auto* list : {&contents.device_counters, &contents.host_slots}) {
    for (auto& device : *list) {
      if (const auto carried = devices_.find(device.key); carried != devices_.end()) {
        add_per_cpu(device.per_cpu, carried->second);
        matched.insert(device.key);
      }
    }
  }
  if (matched.size() == devices_.size()) return;
  // Devices that counted nothing since: their carried counts alone.
  for (const auto& [key, per_cpu] : devices_) {
    if (matched.count(key) == 0) contents.host_slots.push_back({key, per_cpu});
  }
}

bool CarriedDevices::add_to(const netif_rx_device_key& key,
                            std::vector<netif_rx_counters>& per_cpu) const {
  const auto* carried = find(key);
  if (carried == nullptr) return false;
  add_per_cpu(per_cpu, *carried);
  return true;
}

const std::vector<netif_rx_counters>* CarriedDevices::find(const netif_rx_device_key& key) const {
  const auto found = devices_.find(key);
  return found == devices_.end() ? nullptr : &found->second;
}

std::vector<MapAccessError> CarriedDevices::carry(const netif_rx_device_key& key,
                                                  const std::vector<netif_rx_counters>& per_cpu) {
  std::vector<netif_rx_counters> sum(std::max<std::size_t>(possible_cpus_, per_cpu.size()));
  if (const auto* carried = find(key)) add_per_cpu(sum, *carried);
  add_per_cpu(sum, per_cpu);
  if (map_ && possible_cpus_ > 0) {
    sum.resize(possible_cpus_);  // the map's value: a slot per possible CPU
    if (const int err = map_->update(&key, sum.data()); err != 0)
      return {map_->error("update_elem", err)};
  }
  devices_[key] = std::move(sum);
  return {};
}

std::vector<MapAccessError> CarriedDevices::forget(const netif_rx_device_key& key) {
  if (devices_.erase(key) == 0 || !map_) return {};
  if (const int err = map_->remove(&key); err != 0 && err != ENOENT)
    return {map_->error("delete_elem", err)};
  return {};
}

}  // namespace netif_rx
