#include "bpf_stats/bpf_stats.h"

#include <bpf/bpf.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "util/log.h"
#include "util/unique_fd.h"

namespace netif_rx {

DerivedCost derive_cost(const BpfProgramStats& before, const BpfProgramStats& after,
                        double elapsed_seconds) {
  DerivedCost cost;
  if (after.run_count > before.run_count && after.run_time_ns >= before.run_time_ns) {
    cost.ns_per_run = static_cast<double>(after.run_time_ns - before.run_time_ns) /
                      static_cast<double>(after.run_count - before.run_count);
  }
  if (elapsed_seconds > 0 && after.run_time_ns >= before.run_time_ns) {
    cost.cpu_cores =
        static_cast<double>(after.run_time_ns - before.run_time_ns) * 1e-9 / elapsed_seconds;
  }
  return cost;
}

bool sysctl_stats_enabled(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return false;
  char value = 0;
  return ::read(fd.get(), &value, 1) == 1 && value == '1';
}

BpfStatsReader::BpfStatsReader(int program_fd, std::string program_name, AttachMode attach_type,
                               std::vector<BpfMapHandle> maps,
                               std::function<bool()> exporter_enabled, std::string sysctl_path)
    : program_fd_(program_fd),
      program_name_(std::move(program_name)),
      attach_type_(attach_type),
      exporter_enabled_(std::move(exporter_enabled)),
      sysctl_path_(std::move(sysctl_path)) {
  for (auto& map : maps) add_map(std::move(map));
  last_.name = program_name_;
  last_.attach_type = attach_type_;
}

namespace {

// Updates `last` from the kernel's bpf_prog_info; on an error it keeps the
// figures of the last successful read.
void read_program(int program_fd, BpfProgramStats& last) {
  bpf_prog_info info{};
  __u32 length = sizeof info;
  if (bpf_obj_get_info_by_fd(program_fd, &info, &length) == 0) {
    last.id = info.id;
    char tag[2 * BPF_TAG_SIZE + 1] = {};
    for (int i = 0; i < BPF_TAG_SIZE; ++i) std::snprintf(tag + 2 * i, 3, "%02x", info.tag[i]);
    last.tag = tag;
    last.run_time_ns = info.run_time_ns;
    last.run_count = info.run_cnt;
    // recursion_misses exists since 5.12; an older kernel leaves it 0.
    last.recursion_misses = info.recursion_misses;
  } else {
    log::warn("reading a program's info failed",
              {{"program", last.name}, {"err", std::strerror(errno)}});
  }
}

}  // namespace

void BpfStatsReader::add_map(BpfMapHandle map) {
  // A map's capacity and type never change: read them once.
  bpf_map_info info{};
  __u32 length = sizeof info;
  if (bpf_obj_get_info_by_fd(map.fd, &info, &length) != 0) {
    log::warn("reading a map's info failed", {{"map", map.name}, {"err", std::strerror(errno)}});
  }
  max_entries_.push_back(info.max_entries);
  is_array_.push_back(info.type == BPF_MAP_TYPE_ARRAY || info.type == BPF_MAP_TYPE_PERCPU_ARRAY);
  maps_.push_back(std::move(map));
}

void BpfStatsReader::add_program(int program_fd, std::string program_name, AttachMode attach_type) {
  OtherProgram other;
  other.fd = program_fd;
  other.last.name = std::move(program_name);
  other.last.attach_type = attach_type;
  others_.push_back(std::move(other));
}

BpfStatsSnapshot BpfStatsReader::read(std::size_t device_entries,
                                      const HashMapEntries& other_entries) {
  BpfStatsSnapshot out;
  out.valid = true;
  out.stats_enabled =
      (exporter_enabled_ && exporter_enabled_()) || sysctl_stats_enabled(sysctl_path_);

  read_program(program_fd_, last_);
  out.programs.push_back(last_);
  for (OtherProgram& other : others_) {
    read_program(other.fd, other.last);
    out.programs.push_back(other.last);
  }

  for (std::size_t i = 0; i < maps_.size(); ++i) {
    // Arrays always hold max_entries keys; the hash maps hold what the poll
    // just read (no extra syscall).
    std::uint64_t entries = device_entries;
    if (is_array_[i]) {
      entries = max_entries_[i];
    } else if (const auto other = other_entries.find(maps_[i].name); other != other_entries.end()) {
      entries = other->second;
    }
    out.maps.push_back({maps_[i].name, entries, max_entries_[i]});
  }
  return out;
}

}  // namespace netif_rx
