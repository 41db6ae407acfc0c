#include "cli/cli.h"

#include <functional>
#include <map>

#include "cli/flag_parser.h"

namespace netif_rx {
namespace {

bool is_one_of(const std::string& value, std::initializer_list<const char*> allowed) {
  for (const char* a : allowed) {
    if (value == a) return true;
  }
  return false;
}

}  // namespace

CliOptions parse_cli(const std::vector<std::string>& args) {
  CliOptions options;
  const std::map<std::string, std::function<void(const std::string&)>> valued{
      {"--config.file", [&](const std::string& v) { options.config_file = v; }},
      {"--web.config.file", [&](const std::string& v) { options.web_config_file = v; }},
      {"--web.listen-address",
       [&](const std::string& v) { options.listen_addresses.push_back(v); }},
      {"--web.telemetry-path",
       [&](const std::string& v) {
         if (v.empty() || v[0] != '/' || v == "/") {
           throw CliError("--web.telemetry-path: '" + v +
                          "' must be an absolute path other than /, such as /metrics");
         }
         options.telemetry_path = v;
       }},
      {"--log.level",
       [&](const std::string& v) {
         if (!is_one_of(v, {"debug", "info", "warn", "error"})) {
           throw CliError("--log.level: '" + v + "' is not one of debug, info, warn, error");
         }
         options.log_level = v;
       }},
      {"--log.format",
       [&](const std::string& v) {
         if (!is_one_of(v, {"logfmt", "json"})) {
           throw CliError("--log.format: '" + v + "' is not one of logfmt, json");
         }
         options.log_format = v;
       }},
      {"--bpf.btf-path", [&](const std::string& v) { options.btf_path = v; }},
      {"--bpf.pin-path",
       [&](const std::string& v) {
         if (v.empty() || v[0] != '/' || v == "/" || v.size() > 200) {
           throw CliError("--bpf.pin-path: '" + v +
                          "' must be an absolute path of at most 200 bytes on a BPF filesystem, "
                          "such as /sys/fs/bpf/netif_rx_exporter");
         }
         options.pin_path = v;
       }},
  };

  std::size_t first = 0;
  if (!args.empty() && !args[0].empty() && args[0][0] != '-') {
    if (args[0] == "check") {
      options.command = Command::check;
      first = 1;
    } else if (args[0] == "top") {
      options.command = Command::top;
      options.command_args.assign(args.begin() + 1, args.end());
      first = args.size();
    } else if (args[0] == "unpin") {
      options.command = Command::unpin;
      first = 1;
    } else {
      throw CliError("unknown command '" + args[0] +
                     "'; the commands are check, top and unpin (see --help)");
    }
  }
  parse_flags(args, first,
              {valued,
               {{"--help", [&] { options.show_help = true; }},
                {"-h", [&] { options.show_help = true; }},
                {"--version", [&] { options.show_version = true; }},
                {"--web.systemd-socket", [&] { options.systemd_socket = true; }},
                {"--bpf.keep-pins", [&] { options.deprecated_keep_pins = true; }},
                {"--bpf.fd-store", [&] { options.fd_store = true; }}},
               [](const std::string& name) {
                 return "unknown flag '" + name + "'; see --help for the flags";
               }});
  if (options.listen_addresses.empty()) options.listen_addresses.push_back(kDefaultListenAddress);
  if (options.command == Command::unpin && options.pin_path.empty()) {
    throw CliError(
        "unpin needs --bpf.pin-path (the directory where the probe is pinned, such as "
        "/sys/fs/bpf/netif_rx_exporter)");
  }
  return options;
}

std::string usage_text() {
  return R"(usage: netif_rx_exporter [<flags>]
       netif_rx_exporter check [<flags>]
       netif_rx_exporter top [<top flags>]  (see: netif_rx_exporter top --help)
       netif_rx_exporter unpin --bpf.pin-path=DIR

Prometheus exporter of received packets per network device and CPU, counted by
an eBPF probe on the kernel tracepoint net:netif_receive_skb.

Commands:
  (none)                       Run the exporter.
  check                        Check this machine's requirements (with fixes).
  top                          Packets per device and CPU, in the terminal.
  unpin                        Remove the probe pinned at --bpf.pin-path: it
                               detaches and its counts are gone (for an
                               uninstall; refused while an exporter runs on
                               those pins).

Flags:
  -h, --help                   Show this help and exit.
      --version                Show the version and exit.
      --config.file=PATH       YAML configuration file (default: embedded
                               defaults; every key is documented in
                               netif_rx_exporter.yaml).
      --web.listen-address=ADDR
                               Address to listen on, repeatable (default:
                               :19100; forms: :PORT, IPV4:PORT, HOST:PORT,
                               [IPV6]:PORT; [::]:PORT is dual-stack).
      --web.systemd-socket     Serve on the sockets systemd passes (socket
                               activation, netif_rx_exporter.socket)
                               instead of --web.listen-address.
      --web.config.file=PATH   Exporter-toolkit web configuration (TLS, basic
                               auth, headers).
      --web.telemetry-path=PATH
                               Path under which metrics are served
                               (default: /metrics).
      --log.level=LEVEL        debug, info, warn or error (default: info).
      --log.format=FORMAT      logfmt or json (default: logfmt).
      --bpf.btf-path=PATH      Kernel BTF used to relocate the probe
                               (default: /sys/kernel/btf/vmlinux).
      --bpf.pin-path=DIR       Pin the probe (its link and maps) under DIR,
                               on a BPF filesystem, so that it counts while
                               the exporter is down and the next exporter
                               goes on from the same counts. Every stop
                               (SIGTERM, SIGINT, a crash) leaves the pins;
                               'unpin' removes them (default: not pinned;
                               the chart uses /sys/fs/bpf/netif_rx_exporter).
      --bpf.keep-pins          Deprecated, does nothing: with --bpf.pin-path
                               the pins are always kept.
      --bpf.fd-store           Under systemd: keep the probe in the unit's
                               file-descriptor store (FileDescriptorStoreMax=),
                               so that a restart of the service goes on from
                               the same counts and a stop of the unit detaches
                               it (the package's unit sets it; --bpf.pin-path
                               wins over it).
)";
}

}  // namespace netif_rx
