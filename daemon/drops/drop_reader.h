// Reads the drop counter's maps (bpf/netif_rx_drops.bpf.c) into plain data,
// on the polling thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "netif_rx.h"
#include "probe/bpf_map.h"
#include "probe/map_reader.h"

namespace netif_rx {

struct DropEntry {
  netif_rx_drop_key key{};
  std::vector<std::uint64_t> per_cpu;  // index = CPU number, every possible CPU
};

struct DropCounts {
  std::vector<DropEntry> entries;
  // The name each device had at its first drop (raw bytes, NUL-trimmed).
  std::unordered_map<netif_rx_device_key, std::string, DeviceKeyHash> names;
  std::vector<std::uint64_t> counted_per_cpu;    // NETIF_RX_DROP_SLOT_COUNTED
  std::vector<std::uint64_t> untracked_per_cpu;  // NETIF_RX_DROP_SLOT_UNTRACKED
  std::vector<MapAccessError> errors;
};

class DropReader {
 public:
  // The maps drop_counters, drop_device_names and drop_totals.
  DropReader(std::unique_ptr<BpfMap> counters, std::unique_ptr<BpfMap> names,
             std::unique_ptr<BpfMap> totals, unsigned possible_cpus);

  // One reading of every map: the totals first, so that every drop they
  // hold is in an entry read after them (or untracked).
  DropCounts read();

 private:
  std::unique_ptr<BpfMap> counters_;
  std::unique_ptr<BpfMap> names_;
  std::unique_ptr<BpfMap> totals_;
  unsigned possible_cpus_;
};

}  // namespace netif_rx
