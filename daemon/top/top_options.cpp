#include "top/top_options.h"

#include <functional>
#include <map>

#include "app/flag_parser.h"

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
  if (value.rfind("http://", 0) != 0) {
    throw CliError("--from: '" + value +
                   "' is not an http:// URL; give a running exporter's metrics URL, such as "
                   "http://localhost:19100/metrics (https is not supported)");
  }
}

}  // namespace

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
      {"--from",
       [&](const std::string& v) {
         check_url(v);
         options.from = v;
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

Flags:
  -h, --help                   Show this help and exit.
      --once                   Print one table for --duration, then exit.
      --duration=DURATION      The span of the --once table (default: the
                               interval), e.g. 5s.
      --interval=DURATION      How often the live view refreshes (default: 1s;
                               100ms to 1h).
      --output=FORMAT          text (bars) or json (one JSON document per
                               table, one line each).
      --from=URL               Read a running exporter's metrics instead of
                               loading the probe, e.g.
                               http://localhost:19100/metrics (http only).
      --config.file=PATH       The exporter's YAML configuration, for the probe
                               that top loads (namespaces, max_devices, attach).
      --bpf.btf-path=PATH      Kernel BTF used to relocate the probe
                               (default: /sys/kernel/btf/vmlinux).

Without a terminal on stdout the output is plain text, without escape codes.
)";
}

}  // namespace netif_rx
