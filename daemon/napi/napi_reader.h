// Reads the NAPI poll counter's maps (bpf/netif_rx_napi.bpf.c) into plain
// data, on the polling thread.
#pragma once

#include <memory>
#include <vector>

#include "netif_rx.h"
#include "probe/bpf_map.h"
#include "probe/map_reader.h"

namespace netif_rx {

struct NapiEntry {
  netif_rx_device_key key{};
  std::vector<netif_rx_napi_counters> per_cpu;  // index = CPU number, every possible CPU
};

struct NapiCounts {
  std::vector<NapiEntry> entries;                         // each key once
  std::vector<netif_rx_napi_counters> backlog_per_cpu;    // NETIF_RX_NAPI_SLOT_BACKLOG
  std::vector<netif_rx_napi_counters> untracked_per_cpu;  // NETIF_RX_NAPI_SLOT_UNTRACKED
  std::vector<MapAccessError> errors;
};

class NapiReader {
 public:
  // The maps napi_counters and napi_totals.
  NapiReader(std::unique_ptr<BpfMap> counters, std::unique_ptr<BpfMap> totals,
             unsigned possible_cpus);

  NapiCounts read();

 private:
  std::unique_ptr<BpfMap> counters_;
  std::unique_ptr<BpfMap> totals_;
  unsigned possible_cpus_;
};

}  // namespace netif_rx
