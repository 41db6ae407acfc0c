// The drop counter at skb:kfree_skb (bpf/netif_rx_drops.bpf.c): sole owner
// of its skeleton, maps, program and link; destroying it detaches it. Never
// pinned: its counts start from zero with each exporter.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "drops/drop_reasons.h"
#include "netif_rx.h"

struct netif_rx_drops_bpf;

namespace netif_rx {

struct DropProbeOptions {
  std::uint32_t host_netns_inum = 0;
  bool count_all_namespaces = false;
  std::string btf_path = "/sys/kernel/btf/vmlinux";
};

class DropProbe {
 public:
  // Reads the kernel's drop reasons, loads and attaches. Returns null with
  // `why` set when the kernel has no drop reasons (before 5.17) or a step
  // failed: the exporter runs on without drop counters.
  static std::unique_ptr<DropProbe> load(const DropProbeOptions& options, std::string& why);

  ~DropProbe();
  DropProbe(const DropProbe&) = delete;
  DropProbe& operator=(const DropProbe&) = delete;

  // Borrowed descriptors: owned by the probe, never to be closed by callers.
  int drop_counters_fd() const;
  int drop_device_names_fd() const;
  int drop_totals_fd() const;
  int program_fd() const;
  const std::string& program_name() const { return program_name_; }
  const DropReasonTable& reasons() const { return reasons_; }
  unsigned possible_cpus() const { return possible_cpus_; }

  // Deletes the entries (every reason) and recorded names of devices the
  // exporter forgot (gone, or idle past stale_after): their series go with
  // them, and the map does not fill with the devices of pods long gone.
  // Returns the entries deleted; failures are logged.
  std::size_t forget_devices(const std::vector<netif_rx_device_key>& devices);

 private:
  struct SkeletonDeleter {
    void operator()(netif_rx_drops_bpf* skeleton) const;
  };
  DropProbe() = default;

  std::unique_ptr<netif_rx_drops_bpf, SkeletonDeleter> skeleton_;
  std::string program_name_;
  DropReasonTable reasons_;
  unsigned possible_cpus_ = 0;
};

}  // namespace netif_rx
