// Drops on the receive path at one poll, as a scrape serves them
// (netif_rx_drops_total, netif_rx_backlog_drops_total): plain data.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace netif_rx {

// devices.include / devices.exclude: true when the device of this raw
// kernel name is exported.
using DeviceExported = std::function<bool(std::string_view name)>;

// One device's drops for one reason, summed over CPUs; never 0.
struct DropSeries {
  std::uint32_t netns_inum = 0;
  std::uint32_t netns_salt = 0;
  std::string device;  // a label value (to_label_value)
  std::string reason;  // the kernel's name without SKB_DROP_REASON_
  std::uint64_t packets = 0;
};

// The drops of devices folded past max_series, for one reason.
struct FoldedDrops {
  std::string reason;
  std::uint64_t packets = 0;
};

struct DropsSnapshot {
  // The drop counter is attached: netif_rx_drops_total and
  // netif_rx_untracked_drops_total are served.
  bool attached = false;
  // backlog_per_cpu is known (netif_rx_backlog_drops_total is served): from
  // the drop counter's CPU_BACKLOG (5.18+), else from softnet_stat.
  bool backlog = false;
  std::vector<DropSeries> series;   // sorted by (device, netns, reason), each once
  std::vector<FoldedDrops> folded;  // sorted by reason
  std::size_t folded_devices = 0;
  // Drops of reason CPU_BACKLOG by the CPU that dropped them, every
  // possible CPU (a CPU's series appear once it dropped one); before 5.18,
  // softnet_stat's dropped column, by the CPU whose backlog was full.
  std::vector<std::uint64_t> backlog_per_cpu;
  std::uint64_t untracked = 0;  // drops that found the map full
  // Keys the poll read in drop_counters and drop_device_names (their
  // netif_rx_bpf_map_entries).
  std::size_t counter_entries = 0;
  std::size_t name_entries = 0;
  // The lines the three families take.
  std::size_t series_count() const;
};

}  // namespace netif_rx
