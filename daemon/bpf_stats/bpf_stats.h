// Reads the kernel's statistics of the probe's program and maps through
// descriptors the probe owns (no capability needed), on the poller's thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bpf_stats/bpf_stats_data.h"

namespace netif_rx {

struct BpfMapHandle {
  std::string name;  // the name to export (label map=)
  int fd = -1;       // borrowed
};

class BpfStatsReader {
 public:
  // `program_fd` and the map fds are borrowed. `exporter_enabled` says
  // whether the exporter itself holds statistics on now (its fd or its
  // helper's window); `sysctl_path` is where the global switch is read.
  BpfStatsReader(int program_fd, std::string program_name, AttachMode attach_type,
                 std::vector<BpfMapHandle> maps, std::function<bool()> exporter_enabled,
                 std::string sysctl_path = "/proc/sys/kernel/bpf_stats_enabled");

  // Reads another program of ours too (the drop counter): `program_fd` is
  // borrowed. Call before the first read.
  void add_program(int program_fd, std::string program_name, AttachMode attach_type);
  // Reads another map of ours too (the drop and NAPI counters'): `map.fd` is
  // borrowed. Call before the first read.
  void add_map(BpfMapHandle map);

  // One reading. `device_entries` is the number of keys the poll just read
  // from the per-device maps (device_counters, device_names: same keys);
  // `other_entries` those of the other hash maps it read. Errors leave the
  // figures of the last successful read.
  BpfStatsSnapshot read(std::size_t device_entries, const HashMapEntries& other_entries = {});

 private:
  int program_fd_;
  std::string program_name_;
  AttachMode attach_type_;
  std::vector<BpfMapHandle> maps_;
  std::vector<std::uint64_t> max_entries_;
  std::vector<bool> is_array_;
  std::function<bool()> exporter_enabled_;
  std::string sysctl_path_;
  BpfProgramStats last_;
  struct OtherProgram {
    int fd = -1;
    BpfProgramStats last;
  };
  std::vector<OtherProgram> others_;
};

// True when the sysctl file at `path` holds 1.
bool sysctl_stats_enabled(const std::string& path);

}  // namespace netif_rx
