#include "routes/route_reader.h"

#include <cerrno>
#include <string>
#include <type_traits>
#include <unordered_set>

#include "probe/map_keys.h"

namespace netif_rx {
namespace {

constexpr int kKernelEnotsupp = 524;  // the kernel's ENOTSUPP, not in libc

bool batch_unsupported(int error) {
  return error == EINVAL || error == EOPNOTSUPP || error == ENOSYS || error == kKernelEnotsupp;
}

// The per-CPU entries of a hash of packets keyed by a device and a number
// (netif_rx_queue_key, netif_rx_steer_key: the same four words), each key
// once; `keys_read`: how many keys the walk found.
template <typename Key>
std::vector<RouteCount> read_hash(BpfMap& map, std::size_t capacity, unsigned possible_cpus,
                                  std::size_t& keys_read, std::vector<MapAccessError>& errors) {
  // Twice the capacity: a restart of the walk may repeat keys.
  const auto keys = keys_of<Key>(map, 2 * capacity, errors);
  std::unordered_set<std::string> seen;  // the keys' bytes
  std::vector<RouteCount> out;
  for (const Key& key : keys) {
    if (!seen.emplace(reinterpret_cast<const char*>(&key), sizeof key).second) continue;
    RouteCount count{{key.netns_inum, key.ifindex, key.netns_salt},
                     0,
                     std::vector<std::uint64_t>(possible_cpus)};
    if constexpr (std::is_same_v<Key, netif_rx_queue_key>) {
      count.from = key.queue;
    } else {
      count.from = key.from_cpu;
    }
    const int err = map.lookup(&key, count.per_cpu.data());
    if (err == ENOENT) continue;
    if (err != 0) {
      errors.push_back(map.error("lookup", err));
      continue;
    }
    out.push_back(std::move(count));
  }
  keys_read = seen.size();
  return out;
}

bool same_device(const netif_rx_device_key& a, const netif_rx_device_key& b) {
  return a.netns_inum == b.netns_inum && a.ifindex == b.ifindex && a.netns_salt == b.netns_salt;
}

}  // namespace

void add_queue_slot(std::vector<RouteCount>& queues, const netif_rx_queue_slot& slot, unsigned cpu,
                    std::uint32_t host_netns_inum, unsigned possible_cpus) {
  // A slot being taken (its ifindex is written last) or taken by nothing.
  if (slot.ifindex == 0 || slot.queue_mapping == 0 || slot.packets == 0 || cpu >= possible_cpus)
    return;
  const netif_rx_device_key device{host_netns_inum, slot.ifindex, 0};
  const std::uint32_t queue = slot.queue_mapping - 1;
  for (RouteCount& count : queues) {
    if (count.from == queue && same_device(count.device, device)) {
      count.per_cpu[cpu] += slot.packets;
      return;
    }
  }
  RouteCount count{device, queue, std::vector<std::uint64_t>(possible_cpus)};
  count.per_cpu[cpu] = slot.packets;
  queues.push_back(std::move(count));
}

RouteReader::RouteReader(RouteMaps maps, std::uint32_t host_netns_inum, unsigned possible_cpus)
    : maps_(std::move(maps)), host_netns_inum_(host_netns_inum), possible_cpus_(possible_cpus) {}

std::vector<netif_rx_queue_slot> RouteReader::read_slots(std::vector<MapAccessError>& errors) {
  const std::uint32_t entries = possible_cpus_ * NETIF_RX_QUEUE_SLOTS;
  std::vector<netif_rx_queue_slot> slots(entries);
  if (batch_supported_) {
    std::vector<std::uint32_t> keys(entries);
    std::uint64_t out_token = 0;
    std::uint32_t count = entries;
    const int err =
        maps_.queue_slots->lookup_batch(nullptr, &out_token, keys.data(), slots.data(), &count);
    if ((err == 0 || err == ENOENT) && count == entries && keys.front() == 0 &&
        keys.back() == entries - 1)
      return slots;
    if (err != 0 && err != ENOENT && !batch_unsupported(err)) {
      errors.push_back(maps_.queue_slots->error("lookup_batch", err));
      return {};
    }
    if (batch_unsupported(err)) batch_supported_ = false;  // one by one from now on
  }
  for (std::uint32_t key = 0; key < entries; ++key) {
    if (const int err = maps_.queue_slots->lookup(&key, &slots[key]); err != 0) {
      errors.push_back(maps_.queue_slots->error("lookup_elem", err));
      return {};
    }
  }
  return slots;
}

RouteCounts RouteReader::read() {
  RouteCounts out;
  for (std::uint32_t slot : {std::uint32_t{NETIF_RX_ROUTE_SLOT_QUEUE_UNTRACKED},
                             std::uint32_t{NETIF_RX_ROUTE_SLOT_STEER_UNTRACKED}}) {
    std::vector<std::uint64_t> per_cpu(possible_cpus_);
    if (const int err = maps_.route_totals->lookup(&slot, per_cpu.data()); err != 0) {
      out.errors.push_back(maps_.route_totals->error("lookup", err));
      continue;
    }
    std::uint64_t sum = 0;
    for (std::uint64_t cpu : per_cpu) sum += cpu;
    (slot == NETIF_RX_ROUTE_SLOT_QUEUE_UNTRACKED ? out.queue_untracked : out.steer_untracked) = sum;
  }
  out.queues = read_hash<netif_rx_queue_key>(*maps_.queue_counters, NETIF_RX_MAX_QUEUE_ENTRIES,
                                             possible_cpus_, out.queue_entries, out.errors);
  out.steered = read_hash<netif_rx_steer_key>(*maps_.steer_counters, NETIF_RX_MAX_STEER_ENTRIES,
                                              possible_cpus_, out.steer_entries, out.errors);
  const std::vector<netif_rx_queue_slot> slots = read_slots(out.errors);
  for (std::size_t index = 0; index < slots.size(); ++index) {
    add_queue_slot(out.queues, slots[index], static_cast<unsigned>(index / NETIF_RX_QUEUE_SLOTS),
                   host_netns_inum_, possible_cpus_);
  }
  return out;
}

std::vector<MapAccessError> RouteReader::forget_devices(
    const std::vector<netif_rx_device_key>& devices) {
  std::vector<MapAccessError> errors;
  if (devices.empty()) return errors;
  const auto forgotten = [&devices](const netif_rx_device_key& key) {
    for (const netif_rx_device_key& device : devices)
      if (same_device(device, key)) return true;
    return false;
  };
  const auto delete_from = [&](BpfMap& map, const auto& keys) {
    for (const auto& key : keys) {
      if (!forgotten({key.netns_inum, key.ifindex, key.netns_salt})) continue;
      if (const int err = map.remove(&key); err != 0 && err != ENOENT)
        errors.push_back(map.error("delete", err));
    }
  };
  delete_from(
      *maps_.queue_counters,
      keys_of<netif_rx_queue_key>(*maps_.queue_counters, 2 * NETIF_RX_MAX_QUEUE_ENTRIES, errors));
  delete_from(
      *maps_.steer_counters,
      keys_of<netif_rx_steer_key>(*maps_.steer_counters, 2 * NETIF_RX_MAX_STEER_ENTRIES, errors));
  const std::vector<netif_rx_queue_slot> slots = read_slots(errors);
  const netif_rx_queue_slot empty{};
  for (std::uint32_t index = 0; index < slots.size(); ++index) {
    if (slots[index].ifindex == 0 || !forgotten({host_netns_inum_, slots[index].ifindex, 0}))
      continue;
    if (const int err = maps_.queue_slots->update(&index, &empty); err != 0)
      errors.push_back(maps_.queue_slots->error("update_elem", err));
  }
  return errors;
}

}  // namespace netif_rx
