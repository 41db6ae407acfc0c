// One reading of the per-device, per-CPU counters, whichever source it came
// from (the probe's snapshot or a running exporter's /metrics). Cumulative:
// top shows the difference between two readings.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/snapshot.h"
#include "top/exposition_parser.h"

namespace netif_rx {

struct TopCounters {
  std::uint64_t packets = 0;
  std::uint64_t bytes = 0;
  bool operator==(const TopCounters&) const = default;
};

// A device as the exporter names it: its name, and its namespace's inode
// number when the source labels namespaces ("" otherwise).
struct TopDeviceId {
  std::string name;
  std::string netns;
  auto operator<=>(const TopDeviceId&) const = default;
};

// Counters by CPU. Without per-CPU data (a device the exporter does not keep
// per CPU: per_cpu.devices), one element with no CPU: the sum over CPUs.
using TopCpuCounters = std::map<std::optional<unsigned>, TopCounters>;

// A device's packets by the RX queue its driver recorded and the CPU that
// processed them (netif_rx_queue_packets_total): the queue -> CPU matrix.
struct TopQueueCpu {
  unsigned queue = 0;
  unsigned cpu = 0;
  auto operator<=>(const TopQueueCpu&) const = default;
};
using TopQueueCounters = std::map<TopQueueCpu, std::uint64_t>;

struct TopReading {
  bool per_cpu = true;         // some device by CPU
  std::vector<unsigned> cpus;  // sorted; the CPUs present, or that hold counts (or appear)
  std::map<TopDeviceId, TopCpuCounters> devices;
  // Packets dropped on the receive path by device and the kernel's reason
  // (netif_rx_drops_total; a scrape only: the probe source has none).
  std::map<TopDeviceId, std::map<std::string, std::uint64_t>> drops;
  // Packets by RX queue and CPU, for devices whose driver records a queue
  // (a scrape only).
  std::map<TopDeviceId, TopQueueCounters> queues;
  // Why the source has no drop (or queue) counters at all, for the reader;
  // empty when it has them (a device may still have none).
  std::string drops_absent;
  std::string queues_absent;
  // When the reading was taken, on this host's monotonic clock.
  std::chrono::steady_clock::time_point taken{};
  // Unix time of the exporter's poll that the counters come from, when the
  // source says (netif_rx_exporter_last_poll_timestamp_seconds).
  std::optional<double> polled_at;
};

// The probe's snapshot as a reading; `netns_label` when every namespace is
// counted, as the exporter labels them.
TopReading reading_from_snapshot(const Snapshot& snapshot, bool netns_label);

// A /metrics page as a reading: netif_rx_packets_total and
// netif_rx_bytes_total with labels device, cpu (optional) and netns
// (optional); netif_rx_drops_total and netif_rx_queue_packets_total when the
// page has them (their untracked series say that the family is served). Throws ExpositionParseError
// when the page isn't exposition text, or when those families are missing or malformed.
TopReading reading_from_exposition(std::string_view text);

}  // namespace netif_rx
