// The probe's own cost as the kernel reports it: plain data that the poller
// puts into each snapshot, so that a scrape never makes a syscall.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/attach_mode.h"

namespace netif_rx {

// One loaded BPF program (bpf_prog_info).
struct BpfProgramStats {
  std::string name;      // the program's name in the object, e.g. "netif_rx_btf"
  std::uint32_t id = 0;  // kernel program id, as `bpftool prog show` prints it
  std::string tag;       // 16 hex digits
  AttachMode attach_type = AttachMode::tp_btf;  // tp_btf or tracepoint
  std::uint64_t run_time_ns = 0;
  std::uint64_t run_count = 0;
  std::uint64_t recursion_misses = 0;
};

// One of the probe's maps.
struct BpfMapStats {
  std::string name;  // the map's name in the object (not truncated to 15 bytes)
  std::uint64_t entries = 0;
  std::uint64_t max_entries = 0;
};

struct BpfStatsSnapshot {
  bool valid = false;  // false until the first poll read the kernel
  // 1 while the exporter knows the kernel collects run-time statistics: its
  // own BPF_ENABLE_STATS fd (always), its helper's window (sampled), or the
  // sysctl kernel.bpf_stats_enabled=1.
  bool stats_enabled = false;
  std::vector<BpfProgramStats> programs;
  std::vector<BpfMapStats> maps;
};

// Figures derived from two readings of one program's counters.
struct DerivedCost {
  double ns_per_run = 0;  // average run time; 0 when it did not run
  double cpu_cores = 0;   // CPU time the program used per second of wall-clock time
};
DerivedCost derive_cost(const BpfProgramStats& before, const BpfProgramStats& after,
                        double elapsed_seconds);

// Keys the poll read in hash maps other than the per-device ones, by map name
// (the drop and NAPI counters' readers walk theirs whole).
using HashMapEntries = std::unordered_map<std::string, std::uint64_t>;

}  // namespace netif_rx
