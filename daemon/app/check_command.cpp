#include "app/check_command.h"

#include <bpf/bpf.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "app/check_drivers.h"
#include "app/check_map_read.h"
#include "app/check_report.h"
#include "app/kernel_requirement.h"
#include "app/nic_sysfs.h"
#include "config/config.h"
#include "devices/netns.h"
#include "drops/drop_reasons.h"
#include "napi/napi_probe.h"
#include "owners/netns_file.h"
#include "probe/alloc_cpu_support.h"
#include "probe/netns_salt.h"
#include "probe/probe.h"
#include "sys/privileges.h"
#include "util/unique_fd.h"
#include "web/listen_address.h"
#include "web/tls_context.h"
#include "web/web_config.h"

namespace netif_rx {
namespace {

CheckResult check_kernel() {
  const std::string release = running_kernel_release();
  const bool ok = kernel_release_at_least(release, kMinimumKernelMajor, kMinimumKernelMinor);
  return {ok, true, "kernel " + release + " (5.10 or later needed)",
          "upgrade to Linux 5.10 or later (BTF-typed tracepoints, CAP_BPF, per-CPU hash maps "
          "that zero a re-used entry)"};
}

CheckResult check_btf(const CliOptions& cli) {
  const bool ok = ::access(cli.btf_path.c_str(), R_OK) == 0;
  return {ok, true,
          "kernel BTF readable at " + cli.btf_path +
              (ok ? "" : ": " + std::string(std::strerror(errno))),
          "use a kernel built with CONFIG_DEBUG_INFO_BTF=y, or point --bpf.btf-path at this "
          "kernel's BTF"};
}

CheckResult check_privileges() {
  return {can_load_bpf(), true,
          "privileges to load and attach: CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN",
          "run as root, or grant them (systemd: AmbientCapabilities=CAP_BPF CAP_PERFMON); this "
          "process has " +
              describe_capabilities()};
}

// Loads and attaches the real probe as the daemon would, reads its maps as
// the serving process would, then detaches it.
std::vector<CheckResult> check_probe(const CliOptions& cli, const Config& config) {
  if (!can_load_bpf()) {
    return {{false, true, "the probe loads and attaches: not tried without the privileges",
             "fix the privileges above, then run check again"}};
  }
  const auto netns = current_netns_inum();
  try {
    const auto probe = Probe::load(probe_options_for(config, netns.value_or(0), cli.btf_path));
    std::string what =
        "the probe loads and attaches (" + std::string(to_string(probe->attach_mode())) + ")";
    if (probe->attach_mode() != AttachMode::tp_btf) {
      what += "; tp_btf is not available here, the classic tracepoint is used";
    }
    return {{true, true, what, ""}, check_map_read(*probe)};
  } catch (const ProbeError& e) {
    return {{false, true, "the probe loads and attaches", e.what()}};
  }
}

CheckResult check_statistics(const Config& config) {
  if (config.bpf_stats.mode == BpfStatsMode::off) {
    return {true, false,
            "BPF run-time statistics: not enabled by the exporter (bpf_stats.mode: off)", ""};
  }
  std::string what = "BPF run-time statistics can be enabled (bpf_stats.mode: " +
                     std::string(to_string(config.bpf_stats.mode)) + ", needs CAP_SYS_ADMIN)";
  if (!can_enable_bpf_stats()) {
    return {false, false, what,
            "grant CAP_SYS_ADMIN, or set bpf_stats.mode: off (the cost metrics then only move "
            "while something else enables statistics)"};
  }
  UniqueFd stats(bpf_enable_stats(BPF_STATS_RUN_TIME));
  if (!stats.valid()) {
    return {false, false, what + ": " + std::strerror(errno),
            "this kernel can't enable statistics through bpf(2) (5.10 or later), set "
            "bpf_stats.mode: off"};
  }
  return {true, false, what, ""};
}

// namespaces: all only: whether a namespace that gets a dead one's inode
// number is told apart from it (not blocking: counting works either way).
CheckResult check_netns_salt(const CliOptions& cli, const Config& config) {
  const std::string what = "namespaces that reuse an inode number are told apart";
  if (config.namespaces != NamespaceMode::all) {
    return {true, false, what + ": not needed (namespaces: host)", ""};
  }
  const NetnsSaltSupport support = netns_salt_support(cli.btf_path);
  switch (support.kind) {
    case NetnsSaltSupport::Kind::net_cookie:
      // NS_GET_ID (Linux 6.18) gives the same number from a namespace file.
      return {true, false,
              what + " (identity: inode and net_cookie, never reused within a boot; " +
                  (open_netns_file("/proc/self/ns/net").id
                       ? "netif_rx_netns_info checks it by NS_GET_ID)"
                       : "netif_rx_netns_info matches by inode: NS_GET_ID needs Linux 6.18)"),
              ""};
    case NetnsSaltSupport::Kind::hash_mix:
      return {true, false,
              what +
                  " (identity: inode and hash_mix, random: a 2^-32 chance per reuse; "
                  "net_cookie needs Linux 5.12)",
              ""};
    case NetnsSaltSupport::Kind::missing:
      return {false, false,
              what + ": struct net has neither net_cookie nor hash_mix (Linux 5.1 or later)",
              "a namespace that gets a dead namespace's inode number continues its devices' "
              "counters until they go idle for stale_after; upgrade the kernel"};
    case NetnsSaltSupport::Kind::unknown:
      break;
  }
  return {false, false, what + ": " + support.detail, "check --bpf.btf-path"};
}

// Drops with reasons (skb:kfree_skb's reason, Linux 5.17; CPU_BACKLOG 5.18).
CheckResult check_drop_reasons(const CliOptions& cli) {
  const std::string what = "receive drops by reason";
  std::string error;
  const auto enumerators = read_drop_reason_enum(cli.btf_path, error);
  if (!enumerators) return {false, false, what + ": " + error, "check --bpf.btf-path"};
  const DropReasonTable table = drop_reason_table(*enumerators);
  std::size_t counted = 0;
  for (bool each : table.counted) counted += each ? 1 : 0;
  if (counted == 0) {
    return {false, false,
            what +
                ": this kernel has no drop reasons (Linux 5.17): netif_rx_drops_total is left "
                "out; netif_rx_backlog_drops_total comes from /proc/net/softnet_stat",
            "upgrade the kernel to 5.17 or later for drops by reason (5.18 for backlog drops by "
            "the CPU that dropped them)"};
  }
  return {true, false,
          what + " (" + std::to_string(counted) + " receive-path reasons in the kernel's BTF; " +
              (table.backlog ? "backlog drops per CPU as CPU_BACKLOG)"
                             : "no CPU_BACKLOG before Linux 5.18: backlog drops per CPU from "
                               "/proc/net/softnet_stat)"),
          ""};
}

// NAPI pressure (napi:napi_poll, whose work and budget exist since 4.8).
CheckResult check_napi_polls(const CliOptions& cli) {
  const std::string what = "NAPI polls per device and CPU";
  std::string error;
  const auto found = napi_poll_in_btf(cli.btf_path, error);
  if (!found) return {false, false, what + ": " + error, "check --bpf.btf-path"};
  if (!*found) {
    return {false, false,
            what +
                ": the kernel's BTF has no napi_poll tracepoint: netif_rx_napi_* and "
                "netif_rx_backlog_polls_total are left out",
            "a kernel built with CONFIG_DEBUG_INFO_BTF and tracepoints"};
  }
  return {true, false,
          what + " (napi:napi_poll; per-CPU class devices by CPU, the backlog's polls by CPU)", ""};
}

// Steering (skb->alloc_cpu, Linux 5.19); queues need nothing of the kernel.
CheckResult check_steering(const CliOptions& cli) {
  const std::string what = "packets by RX queue and steered packets per device and CPU";
  std::string error;
  const auto found = skb_has_alloc_cpu(cli.btf_path, error);
  if (!found) return {false, false, what + ": " + error, "check --bpf.btf-path"};
  if (!*found) {
    return {false, false,
            what +
                ": packets by RX queue only; the kernel's sk_buff has no alloc_cpu (Linux 5.19): "
                "netif_rx_steered_packets_total is left out",
            "upgrade the kernel to 5.19 or later for steered packets"};
  }
  return {true, false,
          what + " (queue_mapping for drivers that record a queue; alloc_cpu for steering)", ""};
}

// Lines past this many NICs are summed up in one.
constexpr std::size_t kMaxNicLines = 64;

}  // namespace

int run_check(const CliOptions& cli) {
  // Only the report on stdout; libbpf's and the probe's own messages at debug.
  if (cli.log_level != "debug") spdlog::set_level(spdlog::level::off);
  std::vector<CheckResult> results;

  Config config;
  if (cli.config_file) {
    try {
      config = load_config_file(*cli.config_file);
      results.push_back({true, true, "configuration file " + *cli.config_file + " is valid", ""});
    } catch (const ConfigError& e) {
      results.push_back({false, true, "configuration file is valid", e.what()});
    }
  }
  if (cli.web_config_file) {
    try {
      const WebConfig web = load_web_config_file(*cli.web_config_file);
      if (web.tls) (void)build_tls_context(*web.tls);  // certificate, key, client CA
      results.push_back(
          {true, true, "web configuration file " + *cli.web_config_file + " is valid", ""});
    } catch (const ConfigError& e) {
      results.push_back({false, true, "web configuration file is valid", e.what()});
    } catch (const TlsError& e) {
      results.push_back({false, true, "web configuration file is valid", e.what()});
    }
  }
  results.push_back(check_kernel());
  results.push_back(check_btf(cli));
  results.push_back(check_privileges());
  for (auto& result : check_probe(cli, config)) results.push_back(std::move(result));
  results.push_back(check_statistics(config));
  results.push_back(check_netns_salt(cli, config));
  results.push_back(check_drop_reasons(cli));
  results.push_back(check_napi_polls(cli));
  results.push_back(check_steering(cli));
  for (auto& result : check_driver_lines(scan_nics("/sys/class/net", kMaxNicLines))) {
    results.push_back(std::move(result));
  }
  for (const auto& text : cli.listen_addresses) {
    try {
      check_can_listen(parse_listen_address(text));
      results.push_back({true, true, "listen address " + text + " is free", ""});
    } catch (const ListenError& e) {
      results.push_back({false, true, "listen address " + text + " is free", e.what()});
    }
  }

  std::cout << format_check_report(results, ::isatty(STDOUT_FILENO) == 1) << std::flush;
  return check_exit_code(results);
}

}  // namespace netif_rx
