// The exporter's other programs on the receive path, loaded through the
// daemon's own classes (DropProbe, NapiProbe) as the exporter ships them, each
// measured beside the receive probe and the floor on the same traffic.
#pragma once

#include <string>
#include <vector>

#include "bench_network.h"
#include "kernel_programs.h"

namespace netif_rx::bench {

// A drop storm: datagrams to a closed port of the receiving namespace at
// kDropStormRate a second, kDropStormPackets per measurement.
constexpr int kDropStormRate = 100000;
constexpr int kDropStormPackets = 25000;

struct DropStormCosts {
  // Statistics off, paired within a round: the wall-clock ns per dropped
  // packet without the drop counter (the drop itself: the whole path of the
  // storm's packet, send to drop), with it, and their difference.
  std::vector<double> drop_wall_ns;
  std::vector<double> counter_added_wall_ns;
  // Statistics on, the drop counter, the probe and the floor attached
  // together: kernel ns per counted drop, per probe event, per floor event.
  std::vector<double> counter_ns_per_drop;
  std::vector<double> probe_ns_per_event;
  std::vector<double> floor_ns_per_event;
  std::vector<double> drops_per_second;  // counted drops over the storm's duration
  std::string skipped;                   // why the drop counter did not load, if it did not
};

// `probe` and `floor` are attached only while measured; the drop counter
// counts the receiving namespace. Call it before GRO is turned on.
DropStormCosts measure_drop_storm(BenchNetwork& network, BenchProgram& probe, BenchProgram& floor,
                                  int rounds);

struct NapiCosts {
  // Statistics on, the NAPI counter, the probe and the floor attached
  // together, bulk TCP into the veth with GRO on.
  std::vector<double> counter_ns_per_poll;    // every napi_poll event of the transfer
  std::vector<double> counter_ns_per_packet;  // per packet the counted polls handed on
  std::vector<double> packets_per_poll;       // the receiving device's own polls
  std::vector<double> exhausted_share;        // its polls that used their whole budget
  std::vector<double> probe_ns_per_event;
  std::vector<double> floor_ns_per_event;
  std::string skipped;
};

// Call it after BenchNetwork::merge_received_tcp().
NapiCosts measure_napi_costs(BenchNetwork& network, BenchProgram& probe, BenchProgram& floor,
                             int rounds);

}  // namespace netif_rx::bench
