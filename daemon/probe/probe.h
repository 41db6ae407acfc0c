// The loaded and attached BPF probe: sole owner of the skeleton, its maps,
// programs and link. Destroying it detaches the probe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "config/config.h"
#include "continuity/probe_error.h"
#include "continuity/probe_pins.h"
#include "util/unique_fd.h"

struct netif_rx_bpf;

namespace netif_rx {

struct ProbeOptions {
  std::uint32_t host_netns_inum = 0;
  bool count_all_namespaces = false;
  std::uint32_t max_devices = NETIF_RX_DEFAULT_MAX_DEVICES;
  // Blocks of slots for other namespaces (count_all_namespaces only; 0:
  // none) and the slots of each (see bpf/netif_rx.h).
  std::uint32_t netns_blocks = 0;
  std::uint32_t netns_block_slots = NETIF_RX_DEFAULT_NETNS_BLOCK_SLOTS;
  AttachMode attach = AttachMode::automatic;
  std::string btf_path = "/sys/kernel/btf/vmlinux";
  // A directory on a BPF filesystem where the probe is pinned, so that it
  // outlives the process (ProbePins): destroying the probe (a clean stop)
  // leaves the pins, which the next exporter adopts; only `unpin`
  // (continuity/pin_removal.h) removes them. Empty: not pinned.
  std::string pin_path;
  // Keep the probe in systemd's file-descriptor store (ServicePinStore): a
  // restart of the service adopts it, a stop of the unit detaches it. A
  // pin_path wins over it.
  bool fd_store = false;
};

// The options for the probe that `config` asks for, in the network namespace
// `host_netns_inum`, with kernel BTF at `btf_path`.
ProbeOptions probe_options_for(const Config& config, std::uint32_t host_netns_inum,
                               std::string btf_path);

// Routes libbpf's own messages through the daemon's logger (the verifier's
// log at debug level). Idempotent.
void route_libbpf_logs();

class Probe {
 public:
  // Opens, configures, loads and attaches; with a pin path (or the fd
  // store), adopts the maps pinned there when they have this layout and these
  // settings, and hands the counting over from the pinned program to this
  // one (continuity/probe_handover.h). Throws ProbeError.
  static std::unique_ptr<Probe> load(const ProbeOptions& options);

  ~Probe();
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;

  // Borrowed descriptors: owned by the probe, never to be closed by callers.
  int device_counters_fd() const;
  int device_names_fd() const;
  int probe_totals_fd() const;
  int host_counters_fd() const;
  int netns_table_fd() const;
  int netns_slots_fd() const;
  int carried_counters_fd() const;
  int carried_totals_fd() const;
  int queue_slots_fd() const;
  int queue_counters_fd() const;
  int steer_counters_fd() const;
  int route_totals_fd() const;
  int program_fd() const;

  const std::string& program_name() const { return program_name_; }
  // Which twin is attached: tp_btf or tracepoint.
  AttachMode attach_mode() const { return attach_mode_; }
  // Slots of the own-namespace array (min(max_devices, NETIF_RX_MAX_HOST_SLOTS)).
  std::uint32_t host_slots() const { return host_slots_; }
  // Blocks for other namespaces (0: none), slots per block, table entries.
  std::uint32_t netns_blocks() const { return netns_blocks_; }
  std::uint32_t netns_block_slots() const { return netns_block_slots_; }
  std::uint32_t netns_table_size() const { return netns_table_size_; }
  // The namespace whose devices the array counts (ProbeOptions).
  std::uint32_t host_netns_inum() const { return host_netns_inum_; }
  // Slots in each per-CPU value (libbpf_num_possible_cpus()).
  unsigned possible_cpus() const { return possible_cpus_; }
  // When the counts started (the first exporter's program was loaded and
  // attached), in seconds since the Unix epoch: an adopted probe keeps the
  // time of its first exporter.
  double attach_time_seconds() const { return attach_time_seconds_; }
  // True when this probe adopted pinned maps and took the counting over from
  // the pinned program, rather than starting from zero.
  bool adopted() const { return adopted_; }

 private:
  struct SkeletonDeleter {
    void operator()(netif_rx_bpf* skeleton) const;
  };
  Probe() = default;
  // What a loaded and an adopted probe take alike from the options.
  void set_common(const ProbeOptions& options, unsigned possible_cpus);

  // Destroyed last: the lock goes once the probe's own descriptors are closed.
  std::optional<ProbePins> pins_;
  std::unique_ptr<netif_rx_bpf, SkeletonDeleter> skeleton_;
  std::string program_name_;
  AttachMode attach_mode_ = AttachMode::tp_btf;
  std::uint32_t host_slots_ = 0;
  std::uint32_t host_netns_inum_ = 0;
  std::uint32_t netns_blocks_ = 0;
  std::uint32_t netns_block_slots_ = 0;
  std::uint32_t netns_table_size_ = 1;
  unsigned possible_cpus_ = 0;
  double attach_time_seconds_ = 0;
  bool adopted_ = false;
};

}  // namespace netif_rx
