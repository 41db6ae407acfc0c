// An immutable view of the probe's counters at one poll: what a scrape serves.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bpf_stats/bpf_stats_data.h"
#include "drops/drops_snapshot.h"
#include "napi/napi_snapshot.h"
#include "netif_rx.h"
#include "probe/map_reader.h"
#include "routes/route_snapshot.h"

namespace netif_rx {

struct DeviceSeries {
  netif_rx_device_key key{};
  std::string name;  // the device's name now, as a label value
  // Of the per-CPU class: index = CPU number, every possible CPU. Else one
  // element, the sum over CPUs (devices x possible CPUs counters would be
  // most of the exporter's memory on a machine of many CPUs).
  std::vector<netif_rx_counters> per_cpu;
  // Of the per-CPU class (per_cpu.devices, per_cpu.include): exported by CPU,
  // each CPU from its first packet; else summed over CPUs.
  bool per_cpu_detail = false;
  // netif_rx_busiest_cpu_packets_total: over the polls since the exporter
  // first read the device, the sum of each interval's largest per-CPU
  // packet delta.
  std::uint64_t busiest_packets = 0;
};

// The devices folded past max_series, as one series per family.
struct FoldedDevices {
  std::size_t devices = 0;                   // how many (0: none folded)
  std::vector<netif_rx_counters> per_cpu{};  // their counters, summed CPU by CPU
  std::uint64_t busiest_packets = 0;         // the sum of theirs
};

struct Snapshot {
  std::vector<DeviceSeries> devices;  // sorted by (name, netns)
  FoldedDevices folded;               // past max_series
  // The series of the data families as the poll counted them (devices,
  // their busiest CPU, netns info, totals, the folded series): what
  // max_series bounds.
  std::size_t series = 0;
  std::vector<netif_rx_counters> untracked_per_cpu;
  // Counts of the devices whose entries the exporter removed (deleted devices,
  // namespaces gone, devices forgotten or replaced), as last read.
  std::vector<netif_rx_counters> removed_per_cpu;
  // The probe's own total, read just before the devices: every counted
  // packet is in `devices`, `untracked_per_cpu` or `removed_per_cpu`.
  std::vector<netif_rx_counters> counted_per_cpu;
  // Aggregates the probe could not count exactly, by reason.
  std::vector<GsoFallbacks> gso_fallbacks;
  // The CPUs present at the poll (netif_rx_exporter_cpus; the totals by CPU
  // have their lines from the start). Every per-CPU vector has a slot for
  // every possible CPU: sums and per-CPU series take every slot that holds
  // counts, a CPU that left (hot unplugged) too.
  std::vector<unsigned> cpus;
  BpfStatsSnapshot bpf;  // the probe's own cost, read on the same poll
  // Drops on the receive path (the drop counter's, when it is attached),
  // read on the same poll; their series are in `series`.
  DropsSnapshot drops;
  // NAPI polls (the NAPI poll counter's, when it is attached), read on the
  // same poll; their series are in `series`.
  NapiSnapshot napi;
  // Packets by RX queue and steered packets (the probe's), read on the same
  // poll; their series are in `series`.
  RouteSnapshot routes;
};

}  // namespace netif_rx
