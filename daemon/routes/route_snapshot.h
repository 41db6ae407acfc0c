// Packets by RX queue and steered packets at one poll of the exporter, as a
// scrape serves them (netif_rx_queue_packets_total,
// netif_rx_steered_packets_total): plain data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace netif_rx {

// One series: a device's packets of one queue (or from one CPU) on one CPU.
struct RouteLine {
  std::string device;  // a label value, as the data families name it
  std::uint32_t netns_inum = 0;
  std::uint32_t from = 0;  // the RX queue, or the CPU that built the skbs
  std::uint32_t cpu = 0;   // the CPU that processed them
  std::uint64_t packets = 0;

  bool operator==(const RouteLine&) const = default;
};

struct RouteSnapshot {
  // The probe counts queues: the queue families are served.
  bool attached = false;
  // The kernel has skb->alloc_cpu (Linux 5.19): the steering families are
  // served.
  bool steering = false;
  // Sorted by (device, netns, from, cpu); only lines that counted.
  std::vector<RouteLine> queues;
  std::vector<RouteLine> steered;
  // Packets that found queue_counters or steer_counters full.
  std::uint64_t queue_untracked = 0;
  std::uint64_t steer_untracked = 0;
  // Devices of the per-CPU class left out because their lines would pass
  // the series budget.
  std::size_t left_out_devices = 0;
  // Keys the poll read in queue_counters and steer_counters (their
  // netif_rx_bpf_map_entries).
  std::size_t queue_entries = 0;
  std::size_t steer_entries = 0;
  // The lines the families take.
  std::size_t series_count() const {
    if (!attached) return 0;
    return queues.size() + 1 + (steering ? steered.size() + 1 : 0);
  }
};

}  // namespace netif_rx
