// The NAPI poll counter at napi:napi_poll (bpf/netif_rx_napi.bpf.c): sole
// owner of its skeleton, maps, program and link; destroying it detaches it.
// Never pinned: its counts start from zero with each exporter.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "netif_rx.h"

struct netif_rx_napi_bpf;

namespace netif_rx {

struct NapiProbeOptions {
  std::uint32_t host_netns_inum = 0;
  bool count_all_namespaces = false;
  std::string btf_path = "/sys/kernel/btf/vmlinux";
};

// Whether the kernel's BTF at `btf_path` has the napi:napi_poll tracepoint
// that tp_btf attaches to (its btf_trace_napi_poll type); nullopt with
// `error` set when the BTF cannot be read.
std::optional<bool> napi_poll_in_btf(const std::string& btf_path, std::string& error);

class NapiProbe {
 public:
  // Loads and attaches. Returns null with `why` set when a step failed: the
  // exporter runs on without the NAPI families.
  static std::unique_ptr<NapiProbe> load(const NapiProbeOptions& options, std::string& why);

  ~NapiProbe();
  NapiProbe(const NapiProbe&) = delete;
  NapiProbe& operator=(const NapiProbe&) = delete;

  // Borrowed descriptors: owned by the probe, never to be closed by callers.
  int napi_counters_fd() const;
  int napi_totals_fd() const;
  int program_fd() const;
  const std::string& program_name() const { return program_name_; }
  unsigned possible_cpus() const { return possible_cpus_; }

  // Deletes the entries of devices the exporter forgot (gone, or idle past
  // stale_after), so that the map does not fill with the devices of pods
  // long gone. Returns the entries deleted; failures are logged.
  std::size_t forget_devices(const std::vector<netif_rx_device_key>& devices);

 private:
  struct SkeletonDeleter {
    void operator()(netif_rx_napi_bpf* skeleton) const;
  };
  NapiProbe() = default;

  std::unique_ptr<netif_rx_napi_bpf, SkeletonDeleter> skeleton_;
  std::string program_name_;
  unsigned possible_cpus_ = 0;
};

}  // namespace netif_rx
