#include "continuity/layout_carry.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <cerrno>
#include <unordered_set>

#include "continuity/carried_counts.h"
#include "continuity/probe_error.h"
#include "continuity/program_runs_barrier.h"
#include "counters/per_cpu_sum.h"
#include "util/errno_text.h"

namespace netif_rx {
namespace {

// The previous probe's map `name`; -1 when it has none.
int map_fd(const PreviousLayout& previous, const char* name) {
  const auto found = previous.maps.find(name);
  return found == previous.maps.end() ? -1 : found->second.get();
}

std::uint32_t entries_of(int fd) {
  bpf_map_info info{};
  std::uint32_t length = sizeof(info);
  return bpf_obj_get_info_by_fd(fd, &info, &length) == 0 ? info.max_entries : 0;
}

ProbeError read_failure(const char* map, const char* operation) {
  return ProbeError(std::string("carrying the previous layout's counts: ") + operation + " of " +
                    map + " failed: " + errno_text(errno));
}

// Every entry of a per-CPU hash keyed by device that counted something.
std::vector<DeviceCounters> read_device_hash(int fd, const char* name, unsigned cpus) {
  std::vector<DeviceCounters> devices;
  if (fd < 0) return devices;
  std::unordered_set<netif_rx_device_key, DeviceKeyHash> seen;
  netif_rx_device_key key{};
  netif_rx_device_key next{};
  bool first = true;
  while (bpf_map_get_next_key(fd, first ? nullptr : &key, &next) == 0) {
    first = false;
    key = next;
    if (!seen.insert(key).second) continue;
    DeviceCounters device{key, PerCpuCounters(cpus)};
    if (bpf_map_lookup_elem(fd, &key, device.per_cpu.data()) != 0) {
      if (errno == ENOENT) continue;
      throw read_failure(name, "lookup_elem");
    }
    if (counted_anything(device.per_cpu)) devices.push_back(std::move(device));
  }
  return devices;
}

// The slots of a per-CPU array that counted something, by index.
std::vector<std::pair<std::uint32_t, PerCpuCounters>> read_counting_slots(int fd, const char* name,
                                                                          unsigned cpus) {
  std::vector<std::pair<std::uint32_t, PerCpuCounters>> slots;
  if (fd < 0) return slots;
  PerCpuCounters per_cpu(cpus);
  for (std::uint32_t slot = 0, entries = entries_of(fd); slot < entries; ++slot) {
    if (bpf_map_lookup_elem(fd, &slot, per_cpu.data()) != 0)
      throw read_failure(name, "lookup_elem");
    if (counted_anything(per_cpu)) slots.emplace_back(slot, per_cpu);
  }
  return slots;
}

// Every slot of a per-CPU array, counting or not.
std::vector<PerCpuCounters> read_all_slots(int fd, const char* name, unsigned cpus) {
  std::vector<PerCpuCounters> slots;
  if (fd < 0) return slots;
  for (const auto& [slot, per_cpu] : read_counting_slots(fd, name, cpus)) {
    if (slots.size() <= slot) slots.resize(slot + 1, PerCpuCounters(cpus));
    slots[slot] = per_cpu;
  }
  return slots;
}

std::vector<netif_rx_netns_block> read_table(int fd) {
  std::vector<netif_rx_netns_block> table;
  if (fd < 0) return table;
  const std::uint32_t entries = entries_of(fd);
  table.resize(entries);
  for (std::uint32_t index = 0; index < entries; ++index) {
    if (bpf_map_lookup_elem(fd, &index, &table[index]) != 0)
      throw read_failure("netns_table", "lookup_elem");
  }
  return table;
}

PreviousCounts read_previous(const PreviousLayout& previous, unsigned cpus) {
  PreviousCounts counts;
  counts.device_counters =
      read_device_hash(map_fd(previous, "device_counters"), "device_counters", cpus);
  counts.carried_counters =
      read_device_hash(map_fd(previous, "carried_counters"), "carried_counters", cpus);
  const int host = map_fd(previous, "host_counters");
  counts.host_slots = read_counting_slots(host, "host_counters", cpus);
  if (previous.settings.netns_blocks > 0) {
    counts.netns_table = read_table(map_fd(previous, "netns_table"));
    counts.netns_slots = read_counting_slots(map_fd(previous, "netns_slots"), "netns_slots", cpus);
  }
  counts.totals = read_all_slots(map_fd(previous, "probe_totals"), "probe_totals", cpus);
  counts.carried_totals =
      read_all_slots(map_fd(previous, "carried_totals"), "carried_totals", cpus);
  return counts;
}

int new_map_fd(bpf_object* object, const char* name) {
  bpf_map* map = bpf_object__find_map_by_name(object, name);
  if (map == nullptr) throw ProbeError(std::string("the BPF object has no map ") + name);
  return bpf_map__fd(map);
}

void write(int fd, const char* name, const void* key, const void* value) {
  if (bpf_map_update_elem(fd, key, value, BPF_ANY) != 0) {
    throw ProbeError(std::string("carrying the previous layout's counts: update_elem of ") + name +
                     " failed: " + errno_text(errno));
  }
}

// The names the previous probe recorded, where this one has none yet.
std::size_t copy_names(const PreviousLayout& previous, bpf_object* object) {
  const int from = map_fd(previous, "device_names");
  if (from < 0) return 0;
  const int to = new_map_fd(object, "device_names");
  std::size_t copied = 0;
  netif_rx_device_key key{};
  netif_rx_device_key next{};
  bool first = true;
  while (bpf_map_get_next_key(from, first ? nullptr : &key, &next) == 0) {
    first = false;
    key = next;
    netif_rx_device_name name{};
    if (bpf_map_lookup_elem(from, &key, &name) != 0) continue;
    // EEXIST: this probe recorded it meanwhile; E2BIG: full, its next packet
    // records it.
    if (bpf_map_update_elem(to, &key, &name, BPF_NOEXIST) == 0) ++copied;
  }
  return copied;
}

}  // namespace

void wait_for_running_programs() {
  // Every program run that could have read the control map's old entry is
  // over once it returns.
  ProgramRunsBarrier().wait();
}

CarrySummary carry_previous_layout(const PreviousLayout& previous, bpf_object* object,
                                   unsigned possible_cpus) {
  const PreviousCounts counts = read_previous(previous, possible_cpus);
  const int carried_counters = new_map_fd(object, "carried_counters");
  const CarriedCounts carried =
      carry_counts(counts, previous.settings, entries_of(carried_counters), possible_cpus);

  for (const auto& device : carried.devices)
    write(carried_counters, "carried_counters", &device.key, device.per_cpu.data());
  const int carried_totals = new_map_fd(object, "carried_totals");
  for (std::uint32_t slot = 0; slot < carried.totals.size(); ++slot) {
    if (slot == NETIF_RX_SLOT_REMOVED) continue;
    write(carried_totals, "carried_totals", &slot, carried.totals[slot].data());
  }
  // Daemon-only: no program writes it, and no poller runs yet.
  const std::uint32_t removed_slot = NETIF_RX_SLOT_REMOVED;
  write(new_map_fd(object, "probe_totals"), "probe_totals", &removed_slot,
        carried.totals[NETIF_RX_SLOT_REMOVED].data());

  CarrySummary summary;
  summary.devices = carried.devices.size();
  summary.names = copy_names(previous, object);
  summary.slots_without_device = carried.slots_without_device;
  summary.devices_over_capacity = carried.devices_over_capacity;
  return summary;
}

}  // namespace netif_rx
