// What the exporter's configuration accepts, asked of the exporter's own code, for tests that check
// documents (the Helm chart's README and values.schema.json) against it.
//
//   config_contract defaults            one line per key: KEY DEFAULT MIN MAX ("-": none)
//   config_contract durations           per line of stdin: "ok" or "bad" (parse_duration)
//   config_contract check-values FILE   the `config` map of a Helm values file must parse
#include <yaml-cpp/yaml.h>

#include <iostream>
#include <string>

#include "config/config.h"
#include "util/duration.h"

namespace {

using namespace netif_rx;

void print_defaults() {
  const Config c;
  const auto row = [](const std::string& key, const std::string& value, const std::string& min,
                      const std::string& max) {
    std::cout << key << ' ' << value << ' ' << min << ' ' << max << '\n';
  };
  row("poll_interval", format_duration(c.poll_interval), format_duration(kMinPollInterval),
      format_duration(kMaxPollInterval));
  row("namespaces", std::string(to_string(c.namespaces)), "-", "-");
  row("per_cpu.devices", std::string(to_string(c.per_cpu.devices)), "-", "-");
  row("max_series", std::to_string(c.max_series), std::to_string(kMinMaxSeries),
      std::to_string(kMaxMaxSeries));
  row("max_devices", std::to_string(c.max_devices), "1", std::to_string(kMaxDevicesLimit));
  row("netns_blocks", std::to_string(c.netns_blocks), "0",
      std::to_string(NETIF_RX_MAX_NETNS_BLOCKS));
  row("netns_block_slots", std::to_string(c.netns_block_slots), "1",
      std::to_string(NETIF_RX_MAX_NETNS_BLOCK_SLOTS));
  row("stale_after", format_duration(c.stale_after), format_duration(kMinStaleAfter),
      format_duration(kMaxStaleAfter));
  row("attach", std::string(to_string(c.attach)), "-", "-");
  row("bpf_stats.mode", std::string(to_string(c.bpf_stats.mode)), "-", "-");
  row("bpf_stats.window", format_duration(c.bpf_stats.window), format_duration(kMinStatsWindow),
      format_duration(kMaxStatsPeriod));
  row("bpf_stats.period", format_duration(c.bpf_stats.period), format_duration(kMinStatsWindow),
      format_duration(kMaxStatsPeriod));
  const AttributionConfig& a = c.attribution;
  row("attribution.enabled", a.enabled ? "true" : "false", "-", "-");
  row("attribution.refresh_interval", format_duration(a.refresh_interval),
      format_duration(kAttributionMinInterval), format_duration(kMaxAttributionRefresh));
  row("attribution.proc_root", a.proc_root, "-", "-");
  row("attribution.pod_logs_root", a.pod_logs_root, "-", "-");
  row("attribution.machines_root", a.machines_root, "-", "-");
  row("attribution.processes", a.processes ? "true" : "false", "-", "-");
  row("attribution.max_namespaces", std::to_string(a.max_namespaces), "1",
      std::to_string(kMaxAttributionLimit));
  row("attribution.max_processes", std::to_string(a.max_processes), "1",
      std::to_string(kMaxAttributionLimit));
  row("attribution.copy_labels", a.copy_labels ? "true" : "false", "-", "-");
}

int check_values(const std::string& path) {
  const YAML::Node values = YAML::LoadFile(path);
  YAML::Emitter out;
  out << values["config"];
  parse_config(values["config"] ? out.c_str() : "", path + ": config");
  std::cout << "ok\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  try {
    if (command == "defaults") {
      print_defaults();
      return 0;
    }
    if (command == "durations") {
      for (std::string line; std::getline(std::cin, line);) {
        std::cout << (parse_duration(line) ? "ok" : "bad") << '\n';
      }
      return 0;
    }
    if (command == "check-values" && argc == 3) return check_values(argv[2]);
  } catch (const std::exception& e) {
    std::cerr << "config_contract: " << e.what() << '\n';
    return 1;
  }
  std::cerr << "usage: config_contract defaults | durations | check-values FILE\n";
  return 2;
}
