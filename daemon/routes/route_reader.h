// Reads the probe's queue and steering maps (queue_slots, queue_counters,
// steer_counters, route_totals; see bpf/netif_rx.h) into plain data, and
// removes the entries of devices the exporter forgot. On the polling thread.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "netif_rx.h"
#include "probe/bpf_map.h"
#include "probe/map_reader.h"

namespace netif_rx {

// A device's packets of one RX queue (from 0), or from one CPU that built
// them, by the CPU that processed them.
struct RouteCount {
  netif_rx_device_key device{};
  std::uint32_t from = 0;
  std::vector<std::uint64_t> per_cpu;  // index = CPU number, every possible CPU
};

struct RouteCounts {
  std::vector<RouteCount> queues;   // each (device, queue) once: its slots and hash entry summed
  std::vector<RouteCount> steered;  // each (device, from CPU) once
  std::uint64_t queue_untracked = 0;
  std::uint64_t steer_untracked = 0;
  std::size_t queue_entries = 0;  // keys read in queue_counters
  std::size_t steer_entries = 0;  // keys read in steer_counters
  std::vector<MapAccessError> errors;
};

// The maps of the probe, borrowed.
struct RouteMaps {
  std::unique_ptr<BpfMap> queue_slots;     // array: possible CPUs x NETIF_RX_QUEUE_SLOTS
  std::unique_ptr<BpfMap> queue_counters;  // per-CPU hash by netif_rx_queue_key
  std::unique_ptr<BpfMap> steer_counters;  // per-CPU hash by netif_rx_steer_key
  std::unique_ptr<BpfMap> route_totals;    // per-CPU array of NETIF_RX_ROUTE_TOTALS_SLOTS
};

// Adds a taken slot of CPU `cpu` to `queues` (the own namespace
// `host_netns_inum`, salt 0): a pure step of the read, unit-tested.
void add_queue_slot(std::vector<RouteCount>& queues, const netif_rx_queue_slot& slot, unsigned cpu,
                    std::uint32_t host_netns_inum, unsigned possible_cpus);

class RouteReader {
 public:
  RouteReader(RouteMaps maps, std::uint32_t host_netns_inum, unsigned possible_cpus);

  RouteCounts read();

  // Removes every entry of `devices` from the hashes and zeroes their slots.
  // Call it only once the kernel announced a device of the own namespace
  // deleted (as for host_counters' slots: no run for it is in flight).
  std::vector<MapAccessError> forget_devices(const std::vector<netif_rx_device_key>& devices);

 private:
  // Every slot of queue_slots, CPU-major; empty on a failed read.
  std::vector<netif_rx_queue_slot> read_slots(std::vector<MapAccessError>& errors);

  RouteMaps maps_;
  std::uint32_t host_netns_inum_;
  unsigned possible_cpus_;
  bool batch_supported_ = true;
};

}  // namespace netif_rx
