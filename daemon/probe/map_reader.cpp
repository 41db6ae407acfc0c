#include "probe/map_reader.h"

#include <bpf/bpf.h>

#include <cerrno>
#include <cstring>
#include <unordered_set>

namespace netif_rx {
namespace {

constexpr std::uint32_t kInitialBatch = 256;

int last_errno(int result) { return result < 0 ? -result : errno; }

}  // namespace

std::string MapReadError::describe() const {
  return "map " + map + ": " + operation + " failed: " + std::strerror(error);
}

MapReader::MapReader(int device_counters_fd, int device_names_fd, int untracked_fd,
                     unsigned possible_cpus)
    : counters_fd_(device_counters_fd),
      names_fd_(device_names_fd),
      untracked_fd_(untracked_fd),
      possible_cpus_(possible_cpus) {}

MapRead<std::vector<DeviceCounters>> MapReader::read_device_counters() {
  if (!batch_supported_) return read_counters_one_by_one();

  MapRead<std::vector<DeviceCounters>> result;
  std::uint32_t batch_size = kInitialBatch;
  std::vector<netif_rx_device_key> keys;
  std::vector<netif_rx_counters> values;
  std::uint64_t in_token = 0;
  std::uint64_t out_token = 0;
  bool first = true;

  LIBBPF_OPTS(bpf_map_batch_opts, opts);
  while (true) {
    keys.resize(batch_size);
    values.resize(static_cast<std::size_t>(batch_size) * possible_cpus_);
    std::uint32_t count = batch_size;
    const int rc = bpf_map_lookup_batch(counters_fd_, first ? nullptr : &in_token, &out_token,
                                        keys.data(), values.data(), &count, &opts);
    const int err = rc == 0 ? 0 : last_errno(rc);
    if (rc != 0 && err == ENOSPC) {
      // A hash bucket holds more entries than the batch: retry it larger.
      batch_size *= 2;
      continue;
    }
    if (rc != 0 && err != ENOENT) {
      if (first && (err == EINVAL || err == ENOTSUP || err == EOPNOTSUPP || err == ENOSYS)) {
        batch_supported_ = false;  // kernel without batch ops for this map
        return read_counters_one_by_one();
      }
      result.errors.push_back({"device_counters", "lookup_batch", err});
      return result;
    }
    for (std::uint32_t i = 0; i < count; ++i) {
      DeviceCounters device;
      device.key = keys[i];
      const auto* first_value = values.data() + static_cast<std::size_t>(i) * possible_cpus_;
      device.per_cpu.assign(first_value, first_value + possible_cpus_);
      result.value.push_back(std::move(device));
    }
    if (rc != 0) break;  // ENOENT: that was the last batch
    in_token = out_token;
    first = false;
  }
  last_device_count_ = result.value.size();
  return result;
}

MapRead<std::vector<DeviceCounters>> MapReader::read_counters_one_by_one() {
  MapRead<std::vector<DeviceCounters>> result;
  std::unordered_set<netif_rx_device_key, DeviceKeyHash> seen;
  netif_rx_device_key key{};
  netif_rx_device_key next{};
  bool first = true;
  while (bpf_map_get_next_key(counters_fd_, first ? nullptr : &key, &next) == 0) {
    first = false;
    key = next;
    if (!seen.insert(key).second) continue;  // iteration restarted after a deletion
    DeviceCounters device;
    device.key = key;
    device.per_cpu.resize(possible_cpus_);
    const int rc = bpf_map_lookup_elem(counters_fd_, &key, device.per_cpu.data());
    if (rc != 0) {
      const int err = last_errno(rc);
      if (err != ENOENT) result.errors.push_back({"device_counters", "lookup_elem", err});
      continue;
    }
    result.value.push_back(std::move(device));
  }
  last_device_count_ = result.value.size();
  return result;
}

MapRead<std::unordered_map<netif_rx_device_key, std::string, DeviceKeyHash>>
MapReader::read_device_names() {
  MapRead<std::unordered_map<netif_rx_device_key, std::string, DeviceKeyHash>> result;
  netif_rx_device_key key{};
  netif_rx_device_key next{};
  bool first = true;
  while (bpf_map_get_next_key(names_fd_, first ? nullptr : &key, &next) == 0) {
    first = false;
    key = next;
    netif_rx_device_name name{};
    const int rc = bpf_map_lookup_elem(names_fd_, &key, &name);
    if (rc != 0) {
      const int err = last_errno(rc);
      if (err != ENOENT) result.errors.push_back({"device_names", "lookup_elem", err});
      continue;
    }
    result.value[key] = std::string(name.name, strnlen(name.name, sizeof name.name));
  }
  return result;
}

MapRead<std::vector<netif_rx_counters>> MapReader::read_total_slot(std::uint32_t slot) {
  MapRead<std::vector<netif_rx_counters>> result;
  result.value.resize(possible_cpus_);
  const int rc = bpf_map_lookup_elem(untracked_fd_, &slot, result.value.data());
  if (rc != 0) result.errors.push_back({"untracked_counters", "lookup_elem", last_errno(rc)});
  return result;
}

MapRead<std::vector<netif_rx_counters>> MapReader::read_device(const netif_rx_device_key& key) {
  MapRead<std::vector<netif_rx_counters>> result;
  result.value.resize(possible_cpus_);
  const int rc = bpf_map_lookup_elem(counters_fd_, &key, result.value.data());
  if (rc != 0) {
    result.value.clear();
    if (last_errno(rc) != ENOENT) {
      result.errors.push_back({"device_counters", "lookup_elem", last_errno(rc)});
    }
  }
  return result;
}

MapRead<std::vector<netif_rx_counters>> MapReader::read_untracked() {
  return read_total_slot(NETIF_RX_SLOT_UNTRACKED);
}

MapRead<std::vector<netif_rx_counters>> MapReader::read_counted() {
  return read_total_slot(NETIF_RX_SLOT_COUNTED);
}

std::vector<MapReadError> MapReader::delete_device(const netif_rx_device_key& key) {
  std::vector<MapReadError> errors;
  // The name first: the probe records it before creating the counters entry,
  // so whichever entry the probe re-creates meanwhile keeps its name.
  const std::pair<int, const char*> maps[] = {{names_fd_, "device_names"},
                                              {counters_fd_, "device_counters"}};
  for (const auto& [fd, name] : maps) {
    const int rc = bpf_map_delete_elem(fd, &key);
    if (rc != 0 && last_errno(rc) != ENOENT)
      errors.push_back({name, "delete_elem", last_errno(rc)});
  }
  return errors;
}

}  // namespace netif_rx

namespace netif_rx {

std::vector<MapReadError> MapReader::delete_name(const netif_rx_device_key& key) {
  std::vector<MapReadError> errors;
  const int rc = bpf_map_delete_elem(names_fd_, &key);
  if (rc != 0 && last_errno(rc) != ENOENT) {
    errors.push_back({"device_names", "delete_elem", last_errno(rc)});
  }
  return errors;
}

}  // namespace netif_rx
