#include "top/top_options.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>

#include "cli/flag_parser.h"
#include "top/http_url.h"
#include "util/printable.h"

namespace netif_rx {
namespace {

Milliseconds parse_span(const std::string& flag, const std::string& value) {
  const auto parsed = parse_duration(value);
  if (!parsed) {
    throw CliError(flag + ": '" + value +
                   "' is not a duration; write it as Prometheus does: " + "500ms, 2s, 1m30s");
  }
  if (*parsed < kMinTopInterval || *parsed > kMaxTopInterval) {
    throw CliError(flag + ": " + format_duration(*parsed) + " is out of range; it must be from " +
                   format_duration(kMinTopInterval) + " to " + format_duration(kMaxTopInterval));
  }
  return *parsed;
}

void check_url(const std::string& value) {
  if (!parse_http_url(value)) {
    throw CliError("--from: '" + value +
                   "' is not an http:// or https:// URL; give a running exporter's metrics URL, "
                   "such as http://localhost:19100/metrics (credentials go in --from.user)");
  }
}

// A kernel name is 1 to 15 bytes; the exporter's label of it can be longer
// (escaped bytes), never empty or this long.
constexpr std::size_t kMaxDeviceLabel = 256;

void check_device_name(const std::string& value) {
  if (value.empty() || value.size() > kMaxDeviceLabel) {
    throw CliError("--device: '" + printable(value.substr(0, 32)) +
                   "' is not a device name, as the exporter's device label has it");
  }
}

std::size_t parse_body_limit(const std::string& value) {
  const auto parsed = parse_byte_size(value);
  if (!parsed || *parsed < kMinTopBodyLimit || *parsed > kMaxTopBodyLimit) {
    throw CliError("--from.max-body: '" + value + "' is not a size from 4KiB to 1GiB, e.g. 8MiB");
  }
  return *parsed;
}

// The --from.* flags make sense only with --from, and https ones with https.
void check_from_options(const TopOptions& options, bool any_from_flag) {
  const TopFromOptions& from = options.from_options;
  if (!options.from) {
    if (any_from_flag) throw CliError("the --from.* flags need --from=URL");
    return;
  }
  if (!from.ca_file.empty() && !options.from->starts_with("https://")) {
    throw CliError("--from.ca-file is for an https:// URL; --from is " + *options.from);
  }
  if (from.user && from.user->find(':') != std::string::npos) {
    throw CliError("--from.user: a basic-auth user name cannot contain ':'");
  }
  if (from.password_file && !from.user) {
    throw CliError("--from.password-file needs --from.user");
  }
}

}  // namespace

std::optional<std::size_t> parse_byte_size(std::string_view text) {
  static const std::map<std::string_view, std::size_t> kUnits{{"", 1},
                                                              {"B", 1},
                                                              {"kB", 1000},
                                                              {"MB", 1000 * 1000},
                                                              {"GB", 1000000000},
                                                              {"KiB", 1024},
                                                              {"MiB", 1024 * 1024},
                                                              {"GiB", 1024 * 1024 * 1024}};
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 12) return std::nullopt;
  const auto unit = kUnits.find(text.substr(digits));
  if (unit == kUnits.end()) return std::nullopt;
  const std::uint64_t number = std::stoull(std::string(text.substr(0, digits)));
  if (number > UINT64_MAX / unit->second) return std::nullopt;
  return static_cast<std::size_t>(number * unit->second);
}

TopOptions parse_top_options(const std::vector<std::string>& args) {
  TopOptions options;
  const std::map<std::string, std::function<void(const std::string&)>> valued{
      {"--interval", [&](const std::string& v) { options.interval = parse_span("--interval", v); }},
      {"--duration", [&](const std::string& v) { options.duration = parse_span("--duration", v); }},
      {"--output",
       [&](const std::string& v) {
         if (v == "text") {
           options.output = TopOutput::text;
         } else if (v == "json") {
           options.output = TopOutput::json;
         } else {
           throw CliError("--output: '" + v + "' is not one of text, json");
         }
       }},
      {"--device",
       [&](const std::string& v) {
         check_device_name(v);
         options.device = v;
       }},
      {"--from",
       [&](const std::string& v) {
         check_url(v);
         options.from = v;
       }},
      {"--from.ca-file", [&](const std::string& v) { options.from_options.ca_file = v; }},
      {"--from.user", [&](const std::string& v) { options.from_options.user = v; }},
      {"--from.password-file",
       [&](const std::string& v) { options.from_options.password_file = v; }},
      {"--from.max-body",
       [&](const std::string& v) { options.from_options.max_body_bytes = parse_body_limit(v); }},
      {"--from.timeout",
       [&](const std::string& v) {
         options.from_options.timeout = parse_span("--from.timeout", v);
       }},
      {"--config.file", [&](const std::string& v) { options.config_file = v; }},
      {"--bpf.btf-path", [&](const std::string& v) { options.btf_path = v; }},
  };

  parse_flags(args, 0,
              {valued,
               {{"--help", [&] { options.show_help = true; }},
                {"-h", [&] { options.show_help = true; }},
                {"--once", [&] { options.once = true; }}},
               [](const std::string& name) {
                 return "top: unknown flag '" + name + "'; see netif_rx_exporter top --help";
               }});
  if (options.show_help) return options;
  const bool any_from_flag = std::any_of(
      args.begin(), args.end(), [](const std::string& arg) { return arg.starts_with("--from."); });
  check_from_options(options, any_from_flag);
  if (options.duration && !options.once) {
    throw CliError(
        "--duration is the span of the one table --once prints; add --once, or use "
        "--interval to set how often the live view refreshes");
  }
  if (options.from && options.config_file) {
    throw CliError(
        "--config.file configures the probe that top loads; with --from, top reads "
        "the running exporter and loads none");
  }
  return options;
}

std::string top_usage_text() {
  return R"(usage: netif_rx_exporter top [<flags>]

Packets per network device and CPU, as horizontal bars (one row per CPU, the
busiest device first), refreshed every interval until Ctrl-C. Counts come from
the same eBPF probe as the exporter's, loaded by top itself (as root), or from
a running exporter's metrics (--from), so a host that runs the exporter needs
no second probe.

A packet is one as it arrived on the wire: an skb that GRO, LRO or an offload
frame built from many packets counts them all. The same packet is counted
again on each device it is received on: a tunnel's device (vxlan, geneve,
ipip), a bridge after its port, the far end of a veth, a device an ingress
redirect moved it to (not VLAN, bond or macvlan devices, whose packets count
on the lower device). A total over every device counts those more than once.

Flags:
  -h, --help                   Show this help and exit.
      --once                   Print one table for --duration, then exit.
      --duration=DURATION      The span of the --once table (default: the
                               interval), e.g. 5s.
      --interval=DURATION      How often the live view refreshes (default: 1s;
                               100ms to 1h).
      --output=FORMAT          text (bars) or json (one JSON document per
                               table, one line each).
      --device=NAME            One device only: its CPUs, its RX queue -> CPU
                               matrix (packets/s) and its drops by reason
                               (/s). Queues and drops need --from.
      --from=URL               Read a running exporter's metrics instead of
                               loading the probe, e.g.
                               http://localhost:19100/metrics or https://...
      --from.ca-file=PATH      https: the CA certificates to trust (default:
                               the system's).
      --from.user=NAME         Basic auth user; the password is read from
                               --from.password-file or $NETIF_RX_TOP_PASSWORD.
      --from.password-file=PATH
                               A file holding the basic auth password.
      --from.max-body=SIZE     The largest answer top reads (default: 8MiB).
      --from.timeout=DURATION  How long one reading may take (default: 5s).
      --config.file=PATH       The exporter's YAML configuration, for the probe
                               that top loads (namespaces, max_devices, attach).
      --bpf.btf-path=PATH      Kernel BTF used to relocate the probe
                               (default: /sys/kernel/btf/vmlinux).

Without a terminal on stdout the output is plain text, without escape codes.
)";
}

}  // namespace netif_rx
