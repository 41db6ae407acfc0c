#include "probe/map_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_set>

#include "counters/per_cpu_sum.h"

namespace netif_rx {
namespace {

constexpr std::uint32_t kInitialBatch = 256;
// Entries per batch call at most (the kernel allocates the batch's buffers).
constexpr std::uint32_t kLargestBatch = 16384;
// The values of one batch call at most, in bytes (the buffer is kept between
// polls): 5,461 entries at 2 possible CPUs, 85 at 128.
constexpr std::size_t kBatchValueBytes = 256 * 1024;

// The kernel's own ENOTSUPP (not EOPNOTSUPP): what a map type without batch
// operations answers (per-CPU arrays before 5.13).
constexpr int kKernelEnotsupp = 524;

bool batch_unsupported(int error) {
  return error == EINVAL || error == EOPNOTSUPP || error == ENOSYS ||  // ENOTSUP is EOPNOTSUPP
         error == kKernelEnotsupp;
}

// The keys of a hash map, each once: get_next_key restarts from the first
// key when the current one was deleted meanwhile.
std::vector<netif_rx_device_key> keys_of(BpfMap& map) {
  std::vector<netif_rx_device_key> keys;
  std::unordered_set<netif_rx_device_key, DeviceKeyHash> seen;
  netif_rx_device_key key{};
  netif_rx_device_key next{};
  bool first = true;
  while (map.next_key(first ? nullptr : &key, &next) == 0) {
    first = false;
    key = next;
    if (seen.insert(key).second) keys.push_back(key);
  }
  return keys;
}

// Removes `key` from `map`; a missing entry is fine.
void remove_key(BpfMap& map, const netif_rx_device_key& key, std::vector<MapAccessError>& errors) {
  const int error = map.remove(&key);
  if (error != 0 && error != ENOENT) errors.push_back(map.error("delete_elem", error));
}

bool counted_any(const std::vector<netif_rx_counters>& per_cpu) {
  return std::any_of(per_cpu.begin(), per_cpu.end(),
                     [](const netif_rx_counters& c) { return c.skbs != 0; });
}

}  // namespace

MapReader::MapReader(ProbeMaps maps, unsigned possible_cpus)
    : maps_(std::move(maps)), possible_cpus_(possible_cpus) {}

MapRead<std::vector<DeviceCounters>> MapReader::read_device_counters() {
  if (!batch_supported_) return read_counters_one_by_one();

  BpfMap& map = *maps_.device_counters;
  MapRead<std::vector<DeviceCounters>> result;
  // As large as the last poll's read, so that a large map takes few calls,
  // within kBatchValueBytes; the buffers are kept for the next poll.
  const std::size_t entry_bytes = sizeof(netif_rx_counters) * possible_cpus_;
  const auto largest = static_cast<std::uint32_t>(
      std::clamp<std::size_t>(kBatchValueBytes / entry_bytes, 16, kLargestBatch));
  std::uint32_t batch_size =
      std::clamp(last_device_count_, std::min(kInitialBatch, largest), largest);
  std::vector<netif_rx_device_key>& keys = batch_keys_;
  std::vector<netif_rx_counters>& values = batch_values_;
  result.value.reserve(last_device_count_);
  std::uint64_t in_token = 0;
  std::uint64_t out_token = 0;
  bool first = true;
  while (true) {
    keys.resize(batch_size);
    values.resize(static_cast<std::size_t>(batch_size) * possible_cpus_);
    std::uint32_t count = batch_size;
    const int err = map.lookup_batch(first ? nullptr : &in_token, &out_token, keys.data(),
                                     values.data(), &count);
    if (err == ENOSPC) {
      // A hash bucket holds more entries than the batch: retry it larger.
      batch_size *= 2;
      continue;
    }
    if (err != 0 && err != ENOENT) {
      if (first && batch_unsupported(err)) {
        batch_supported_ = false;  // kernel without batch ops for this map
        return read_counters_one_by_one();
      }
      result.errors.push_back(map.error("lookup_batch", err));
      return result;
    }
    for (std::uint32_t i = 0; i < count; ++i) {
      const auto* first_value = values.data() + static_cast<std::size_t>(i) * possible_cpus_;
      result.value.push_back({keys[i], per_cpu_copy(first_value)});
    }
    if (err != 0) break;  // ENOENT: that was the last batch
    in_token = out_token;
    first = false;
  }
  last_device_count_ = static_cast<std::uint32_t>(result.value.size());
  return result;
}

std::vector<netif_rx_counters> MapReader::per_cpu_copy(const netif_rx_counters* first) {
  if (spare_per_cpu_.empty()) return {first, first + possible_cpus_};
  std::vector<netif_rx_counters> per_cpu = std::move(spare_per_cpu_.back());
  spare_per_cpu_.pop_back();
  per_cpu.assign(first, first + possible_cpus_);
  return per_cpu;
}

void MapReader::recycle(std::vector<netif_rx_counters>&& per_cpu) {
  if (spare_per_cpu_.size() >= last_device_count_ || per_cpu.capacity() < possible_cpus_) return;
  spare_per_cpu_.push_back(std::move(per_cpu));
}

MapRead<std::vector<DeviceCounters>> MapReader::read_counters_one_by_one() {
  BpfMap& map = *maps_.device_counters;
  MapRead<std::vector<DeviceCounters>> result;
  for (const auto& key : keys_of(map)) {
    DeviceCounters device{key, std::vector<netif_rx_counters>(possible_cpus_)};
    const int err = map.lookup(&key, device.per_cpu.data());
    if (err == 0) {
      result.value.push_back(std::move(device));
    } else if (err != ENOENT) {  // ENOENT: deleted since
      result.errors.push_back(map.error("lookup_elem", err));
    }
  }
  return result;
}

MapRead<DeviceNames> MapReader::read_device_names() {
  BpfMap& map = *maps_.device_names;
  MapRead<DeviceNames> result;
  for (const auto& key : keys_of(map)) {
    netif_rx_device_name name{};
    const int err = map.lookup(&key, &name);
    if (err == 0) {
      result.value[key] = std::string(name.name, strnlen(name.name, sizeof name.name));
    } else if (err != ENOENT) {
      result.errors.push_back(map.error("lookup_elem", err));
    }
  }
  return result;
}

MapRead<std::vector<DeviceCounters>> MapReader::read_host_slots(
    const std::vector<std::uint32_t>& ifindexes) {
  MapRead<std::vector<DeviceCounters>> result;
  for (const std::uint32_t ifindex : ifindexes) {
    const netif_rx_device_key key{maps_.host_netns_inum, ifindex, 0};  // own namespace: salt 0
    if (!in_host_array(key) || ifindex == 0) continue;
    DeviceCounters device;
    device.key = key;
    device.per_cpu.resize(possible_cpus_);
    if (const int err = maps_.host_counters->lookup(&ifindex, device.per_cpu.data()); err != 0) {
      result.errors.push_back(maps_.host_counters->error("lookup_elem", err));
      continue;
    }
    // A slot without packets is a device that received nothing yet: like a
    // device without an entry in the hash.
    if (counted_any(device.per_cpu)) result.value.push_back(std::move(device));
  }
  return result;
}

MapRead<std::vector<netif_rx_counters>> MapReader::read_total_slot(std::uint32_t slot) {
  MapRead<std::vector<netif_rx_counters>> result;
  result.value.resize(possible_cpus_);
  const int err = maps_.probe_totals->lookup(&slot, result.value.data());
  if (err != 0) result.errors.push_back(maps_.probe_totals->error("lookup_elem", err));
  return result;
}

MapRead<std::vector<netif_rx_counters>> MapReader::read_untracked() {
  return read_total_slot(NETIF_RX_SLOT_UNTRACKED);
}

MapRead<std::vector<netif_rx_counters>> MapReader::read_counted() {
  MapRead<std::vector<netif_rx_counters>> counted = read_total_slot(NETIF_RX_SLOT_COUNTED);
  drop_handover_marks(counted.value);
  return counted;
}

MapRead<std::vector<netif_rx_counters>> MapReader::read_removed() {
  return read_total_slot(NETIF_RX_SLOT_REMOVED);
}

std::vector<MapAccessError> MapReader::write_removed(
    const std::vector<netif_rx_counters>& per_cpu) {
  std::vector<netif_rx_counters> value(possible_cpus_);
  std::copy_n(per_cpu.begin(), std::min<std::size_t>(per_cpu.size(), value.size()), value.begin());
  const std::uint32_t slot = NETIF_RX_SLOT_REMOVED;
  if (const int err = maps_.probe_totals->update(&slot, value.data()); err != 0)
    return {maps_.probe_totals->error("update_elem", err)};
  return {};
}

MapRead<std::vector<GsoFallbacks>> MapReader::read_gso_fallbacks() {
  struct Slot {
    std::uint32_t index;
    const char* reason;
  };
  static constexpr Slot kSlots[] = {
      {NETIF_RX_SLOT_FALLBACK_GSO_BY_FRAGS, "gso_by_frags"},
      {NETIF_RX_SLOT_FALLBACK_UNPARSED, "unparsed_headers"},
      {NETIF_RX_SLOT_FALLBACK_HEADERS, "headers_not_restored"},
  };
  MapRead<std::vector<GsoFallbacks>> result;
  for (const Slot& slot : kSlots) {
    auto read = read_total_slot(slot.index);
    if (!read.ok()) {
      result.errors.insert(result.errors.end(), read.errors.begin(), read.errors.end());
      continue;
    }
    GsoFallbacks fallbacks{slot.reason, {}};
    fallbacks.skbs_per_cpu.reserve(read.value.size());
    for (const auto& cpu : read.value) fallbacks.skbs_per_cpu.push_back(cpu.skbs);
    result.value.push_back(std::move(fallbacks));
  }
  return result;
}

MapRead<std::vector<netif_rx_counters>> MapReader::read_device(const netif_rx_device_key& key) {
  MapRead<std::vector<netif_rx_counters>> result;
  result.value.resize(possible_cpus_);
  if (in_host_array(key)) {
    const int err = maps_.host_counters->lookup(&key.ifindex, result.value.data());
    if (err != 0) result.errors.push_back(maps_.host_counters->error("lookup_elem", err));
    if (err != 0 || !counted_any(result.value)) result.value.clear();
    return result;
  }
  const int err = maps_.device_counters->lookup(&key, result.value.data());
  if (err != 0) {
    result.value.clear();
    if (err != ENOENT) result.errors.push_back(maps_.device_counters->error("lookup_elem", err));
  }
  return result;
}

std::vector<MapAccessError> MapReader::delete_device(const netif_rx_device_key& key) {
  std::vector<MapAccessError> errors;
  if (in_host_array(key)) {
    // An array slot cannot be deleted: zero it. The probe never writes the
    // hash for this key, so there is nothing else to remove.
    const std::vector<netif_rx_counters> zeros(possible_cpus_);
    if (const int err = maps_.host_counters->update(&key.ifindex, zeros.data()); err != 0)
      errors.push_back(maps_.host_counters->error("update_elem", err));
    return errors;
  }
  // The name first: the probe records it before creating the counters entry,
  // so whichever entry the probe re-creates meanwhile keeps its name.
  remove_key(*maps_.device_names, key, errors);
  remove_key(*maps_.device_counters, key, errors);
  return errors;
}

std::vector<MapAccessError> MapReader::delete_name(const netif_rx_device_key& key) {
  std::vector<MapAccessError> errors;
  remove_key(*maps_.device_names, key, errors);
  return errors;
}

MapRead<std::vector<netif_rx_netns_block>> MapReader::read_netns_table() {
  MapRead<std::vector<netif_rx_netns_block>> result;
  if (netns_blocks() == 0) return result;
  result.value.resize(maps_.netns_table_size);
  for (std::uint32_t index = 0; index < maps_.netns_table_size; ++index) {
    if (const int err = maps_.netns_table->lookup(&index, &result.value[index]); err != 0) {
      result.errors.push_back(maps_.netns_table->error("lookup_elem", err));
      result.value.clear();
      break;
    }
  }
  return result;
}

std::vector<MapAccessError> MapReader::write_netns_entry(const NetnsTableWrite& write) {
  if (const int err = maps_.netns_table->update(&write.index, &write.entry); err != 0)
    return {maps_.netns_table->error("update_elem", err)};
  return {};
}

MapRead<std::vector<netif_rx_counters>> MapReader::read_block_slots(std::uint32_t block) {
  MapRead<std::vector<netif_rx_counters>> result;
  const std::uint32_t slots = maps_.netns_block_slots;
  const std::uint32_t first = block * slots;
  result.value.resize(static_cast<std::size_t>(slots) * possible_cpus_);
  if (block_batch_supported_) {
    // An array's batch starts after the key it is given: the slot before.
    std::vector<std::uint32_t> keys(slots);
    std::uint64_t in_token = first == 0 ? 0 : first - 1;
    std::uint64_t out_token = 0;
    std::uint32_t count = slots;
    const int err = maps_.netns_slots->lookup_batch(first == 0 ? nullptr : &in_token, &out_token,
                                                    keys.data(), result.value.data(), &count);
    if ((err == 0 || err == ENOENT) && count == slots && keys.front() == first &&
        keys.back() == first + slots - 1)
      return result;
    if (err != 0 && err != ENOENT && !batch_unsupported(err)) {
      result.errors.push_back(maps_.netns_slots->error("lookup_batch", err));
      return result;
    }
    if (batch_unsupported(err)) block_batch_supported_ = false;  // one by one from now on
  }
  for (std::uint32_t i = 0; i < slots; ++i) {
    const std::uint32_t key = first + i;
    auto* value = result.value.data() + static_cast<std::size_t>(i) * possible_cpus_;
    if (const int err = maps_.netns_slots->lookup(&key, value); err != 0) {
      result.errors.push_back(maps_.netns_slots->error("lookup_elem", err));
      return result;
    }
  }
  return result;
}

MapRead<std::vector<DeviceCounters>> MapReader::read_netns_block(const PlacedNetns& placed) {
  MapRead<std::vector<DeviceCounters>> result;
  auto slots = read_block_slots(placed.block);
  result.errors = std::move(slots.errors);
  if (!result.ok()) return result;
  for (std::uint32_t ifindex = 1; ifindex < maps_.netns_block_slots; ++ifindex) {
    const auto* first = slots.value.data() + static_cast<std::size_t>(ifindex) * possible_cpus_;
    std::vector<netif_rx_counters> per_cpu(first, first + possible_cpus_);
    if (!counted_any(per_cpu)) continue;
    result.value.push_back(
        {netif_rx_device_key{placed.netns.inum, ifindex, placed.netns.salt}, std::move(per_cpu)});
  }
  return result;
}

std::vector<MapAccessError> MapReader::zero_netns_slot(std::uint32_t block, std::uint32_t ifindex) {
  if (block >= netns_blocks() || ifindex >= maps_.netns_block_slots) return {};
  const std::uint32_t key = block * maps_.netns_block_slots + ifindex;
  const std::vector<netif_rx_counters> zeros(possible_cpus_);
  if (const int err = maps_.netns_slots->update(&key, zeros.data()); err != 0)
    return {maps_.netns_slots->error("update_elem", err)};
  return {};
}

}  // namespace netif_rx
