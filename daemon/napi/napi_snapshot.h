// NAPI polls at one poll of the exporter, as a scrape serves them
// (netif_rx_napi_*_total, netif_rx_backlog_*_total): plain data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace netif_rx {

// One CPU's polls of a device's NAPI contexts, or of a CPU's backlog.
struct NapiPolls {
  std::uint64_t polls = 0;
  std::uint64_t packets = 0;    // the polls' work
  std::uint64_t exhausted = 0;  // polls whose work reached the budget

  bool operator==(const NapiPolls&) const = default;
};

// A device of the per-CPU class with polls.
struct NapiDeviceSeries {
  std::string device;  // a label value, as the data families name it
  std::uint32_t netns_inum = 0;
  std::vector<NapiPolls> per_cpu;  // index = CPU number; a CPU's lines once it polled
};

struct NapiSnapshot {
  // The NAPI poll counter is attached: the families are served.
  bool attached = false;
  std::vector<NapiDeviceSeries> devices;   // sorted by (device, netns), each once
  std::vector<NapiPolls> backlog_per_cpu;  // every possible CPU; lines once it polled
  NapiPolls untracked;                     // devices that found the map full, summed
  // Devices of the per-CPU class left out because their lines would pass
  // the series budget.
  std::size_t left_out_devices = 0;
  // Keys the poll read in napi_counters (its netif_rx_bpf_map_entries).
  std::size_t counter_entries = 0;
  // The lines the families take.
  std::size_t series_count() const;
};

}  // namespace netif_rx
