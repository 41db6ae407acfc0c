// The exporter's configuration: embedded defaults, overridden by the YAML
// file given with --config.file. Every key is documented, with its default,
// in config/netif_rx_exporter.yaml.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "config/attach_mode.h"
#include "config/config_error.h"
#include "netif_rx.h"
#include "util/duration.h"

namespace netif_rx {

enum class NamespaceMode { host, all };
enum class BpfStatsMode { sampled, always, off };

// Which devices are exported: regular expressions (ECMAScript syntax) that
// must match the whole device name. Empty include means every device;
// exclude wins over include.
struct DeviceFilterConfig {
  std::vector<std::string> include;
  std::vector<std::string> exclude;
};

// When the kernel collects BPF run-time statistics (run_time_ns, run_cnt).
struct BpfStatsConfig {
  // sampled: for `window` every `period`; always: the whole lifetime;
  // off: never enabled by the exporter (what the kernel reports is exported).
  BpfStatsMode mode = BpfStatsMode::sampled;
  Milliseconds window{1000};
  Milliseconds period{60000};
};

// Who owns each network namespace (netif_rx_netns_info), from the node's own
// files; namespaces: all only.
struct AttributionConfig {
  bool enabled = true;
  // A full rescan this often; a namespace seen for the first time (a new
  // inode, or an inode with a new salt) is resolved at once, at most every
  // kAttributionMinInterval.
  Milliseconds refresh_interval{60000};
  // Runtime bundle folders: containerd's (<root>/<id>/config.json), CRI-O's
  // (<root>/<id>/userdata/config.json) and docker's (<root>/<id>/config.v2.json).
  std::vector<std::string> bundle_roots{"/run/containerd/io.containerd.runtime.v2.task/k8s.io",
                                        "/run/k3s/containerd/io.containerd.runtime.v2.task/k8s.io",
                                        "/run/containers/storage/overlay-containers",
                                        "/var/lib/containers/storage/overlay-containers",
                                        "/var/lib/docker/containers"};
  std::string proc_root = "/proc";  // processes, and <proc_root>/1/mountinfo
  std::string pod_logs_root = "/var/log/pods";
  std::string machines_root = "/run/systemd/machines";  // systemd-machined's registry
  bool processes = true;                                // scan <proc_root>/<pid>/{ns/net,cgroup}
  std::uint32_t max_namespaces = 4096;
  std::uint32_t max_processes = 65536;
  // Copies the owner's namespace and pod labels onto the data families.
  bool copy_labels = false;

  bool operator==(const AttributionConfig&) const = default;
};

// Which devices keep per-CPU series (a cpu label); every other device gets
// one series per family, summed over CPUs. A per-CPU device has a CPU's
// series from the first packet counted on that CPU.
enum class PerCpuDevices {
  physical,  // the own namespace's physical devices (a parent device in sysfs), bonds of
             // them, VLANs on them
  all,       // every device; the totals families (untracked, removed, counted,
             // fallbacks) by CPU too
  none,      // no device (but those named in include)
};

struct PerCpuConfig {
  PerCpuDevices devices = PerCpuDevices::physical;
  // Regular expressions on the whole device name: these keep per-CPU series
  // too, in any namespace.
  std::vector<std::string> include;

  bool operator==(const PerCpuConfig&) const = default;
};

struct Config {
  // How often the probe's maps are read; scrapes serve the latest read.
  Milliseconds poll_interval{1000};
  // host: count only the exporter's own network namespace; all: every one.
  NamespaceMode namespaces = NamespaceMode::host;
  // Which devices keep per-CPU series.
  PerCpuConfig per_cpu;
  // At most this many series in the data families (devices' packets, skbs,
  // bytes and busiest CPU, netns info, totals): past it, the devices seen
  // last fold into one series per family, device="(folded devices)".
  std::uint32_t max_series = 20000;
  // Capacity of the probe's per-device map.
  std::uint32_t max_devices = NETIF_RX_DEFAULT_MAX_DEVICES;
  // namespaces: all only: blocks of array slots for other namespaces (0:
  // none, the hash counts them all) and the slots (ifindexes) of each.
  std::uint32_t netns_blocks = NETIF_RX_DEFAULT_NETNS_BLOCKS;
  std::uint32_t netns_block_slots = NETIF_RX_DEFAULT_NETNS_BLOCK_SLOTS;
  // Which twin of the probe to attach; automatic prefers tp_btf.
  AttachMode attach = AttachMode::automatic;
  // namespaces: all only: a device of another namespace that received nothing
  // for this long is forgotten (its namespace may be gone).
  Milliseconds stale_after{600000};
  DeviceFilterConfig devices;
  BpfStatsConfig bpf_stats;
  AttributionConfig attribution;
  // Accepted but deprecated (the old boolean per_cpu): logged once at load.
  std::vector<std::string> warnings;
};

inline constexpr std::uint32_t kMaxDevicesLimit = 1U << 20;
inline constexpr std::uint32_t kMinMaxSeries = 100;
inline constexpr std::uint32_t kMaxMaxSeries = 10000000;
inline constexpr Milliseconds kMinPollInterval{100};
inline constexpr Milliseconds kMaxPollInterval{3600 * 1000};
inline constexpr Milliseconds kMinStaleAfter{1000};
inline constexpr Milliseconds kMaxStaleAfter{7LL * 24 * 3600 * 1000};
inline constexpr Milliseconds kMinStatsWindow{100};
inline constexpr Milliseconds kMaxStatsPeriod{24LL * 3600 * 1000};
inline constexpr Milliseconds kAttributionMinInterval{2000};
inline constexpr Milliseconds kMaxAttributionRefresh{3600 * 1000};
inline constexpr std::uint32_t kMaxAttributionLimit = 1U << 20;

// Parses YAML text; `source` names it in error messages. Throws ConfigError.
Config parse_config(std::string_view yaml_text, const std::string& source);

// Reads and parses a file. Throws ConfigError (also when it can't be read).
Config load_config_file(const std::string& path);
// The file's configuration, or the embedded defaults when there is no file
// (no --config.file). Throws ConfigError.
Config load_config(const std::optional<std::string>& path);

std::string_view to_string(NamespaceMode mode);
std::string_view to_string(BpfStatsMode mode);
std::string_view to_string(PerCpuDevices devices);

}  // namespace netif_rx
