#include "config/config.h"

#include <yaml-cpp/yaml.h>

#include <cstring>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "config/yaml_file.h"

namespace netif_rx {
namespace {

class Reader {
 public:
  // `key_mark`: where the key being read is.
  Reader(const std::string& source, const YAML::Mark& key_mark)
      : source_(source), key_mark_(key_mark) {}

  std::string scalar(const YAML::Node& node, std::string_view key,
                     std::string_view expected) const {
    // "key:" with nothing after it: the empty value's mark is wherever the
    // parser went next (the next line), so point at the key instead.
    if (node.IsNull()) {
      fail_at(source_, key_mark_, key, "has no value; expected " + std::string(expected));
    }
    if (!node.IsScalar()) fail_at(source_, node.Mark(), key, "expected " + std::string(expected));
    return node.Scalar();
  }

  Milliseconds duration(const YAML::Node& node, std::string_view key, Milliseconds min,
                        Milliseconds max) const {
    const std::string text = scalar(node, key, "a duration such as 500ms, 1s or 1m");
    auto parsed = parse_duration(text);
    if (!parsed) {
      fail_at(source_, node.Mark(), key,
              "'" + text + "' is not a duration; write it as Prometheus does: 500ms, 1s, 1m");
    }
    if (*parsed < min || *parsed > max) {
      fail_at(source_, node.Mark(), key,
              text + " is out of range; must be between " + format_duration(min) + " and " +
                  format_duration(max));
    }
    return *parsed;
  }

  bool boolean(const YAML::Node& node, std::string_view key) const {
    const std::string text = scalar(node, key, "true or false");
    if (text == "true" || text == "True" || text == "TRUE") return true;
    if (text == "false" || text == "False" || text == "FALSE") return false;
    fail_at(source_, node.Mark(), key, "'" + text + "' is not a boolean; expected true or false");
  }

  std::uint64_t integer(const YAML::Node& node, std::string_view key, std::uint64_t min,
                        std::uint64_t max) const {
    const std::string text = scalar(node, key, "an integer");
    std::uint64_t value = 0;
    bool valid = !text.empty() && text.size() <= 19;
    for (char c : text) {
      if (c < '0' || c > '9') {
        valid = false;
        break;
      }
      value = value * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (!valid) fail_at(source_, node.Mark(), key, "'" + text + "' is not a whole number");
    if (value < min || value > max) {
      fail_at(source_, node.Mark(), key,
              text + " is out of range; must be between " + std::to_string(min) + " and " +
                  std::to_string(max));
    }
    return value;
  }

  template <typename Enum, std::size_t N>
  Enum choice(const YAML::Node& node, std::string_view key,
              const std::pair<std::string_view, Enum> (&choices)[N]) const {
    const std::string text = scalar(node, key, "a string");
    std::string names;
    for (const auto& [name, value] : choices) {
      if (text == name) return value;
      names += names.empty() ? "" : " or ";
      names += name;
    }
    fail_at(source_, node.Mark(), key, "'" + text + "' is not valid; expected " + names);
  }

  // A list of regular expressions, each compiled to check it.
  std::vector<std::string> regex_list(const YAML::Node& node, std::string_view key) const {
    if (node.IsNull()) return {};
    if (!node.IsSequence())
      fail_at(source_, node.Mark(), key, "expected a list of regular expressions");
    std::vector<std::string> out;
    for (const auto& item : node) {
      const std::string text = scalar(item, key, "a regular expression (a string)");
      try {
        std::regex compiled(text, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        fail_at(source_, item.Mark(), key,
                "'" + text + "' is not a valid regular expression: " + e.what());
      }
      out.push_back(text);
    }
    return out;
  }

  // A list of absolute paths.
  std::vector<std::string> path_list(const YAML::Node& node, std::string_view key) const {
    if (node.IsNull()) return {};
    if (!node.IsSequence()) fail_at(source_, node.Mark(), key, "expected a list of paths");
    std::vector<std::string> out;
    for (const auto& item : node) out.push_back(path(item, key));
    return out;
  }

  std::string path(const YAML::Node& node, std::string_view key) const {
    std::string text = scalar(node, key, "an absolute path");
    if (text.empty() || text[0] != '/' || text.find('\0') != std::string::npos) {
      fail_at(source_, node.Mark(), key, "'" + text + "' is not an absolute path");
    }
    return text;
  }

  [[noreturn]] void unknown_key(const YAML::Node& key_node, const std::string& key,
                                const std::set<std::string>& known) const {
    std::string list;
    for (const auto& name : known) list += (list.empty() ? "" : ", ") + name;
    fail_at(source_, key_node.Mark(), key, "unknown key; valid keys are " + list);
  }

  const std::string& source() const { return source_; }

 private:
  const std::string& source_;
  YAML::Mark key_mark_;
};

constexpr std::pair<std::string_view, NamespaceMode> kNamespaceModes[] = {
    {"host", NamespaceMode::host}, {"all", NamespaceMode::all}};
constexpr std::pair<std::string_view, BpfStatsMode> kBpfStatsModes[] = {
    {"sampled", BpfStatsMode::sampled},
    {"always", BpfStatsMode::always},
    {"off", BpfStatsMode::off}};
constexpr std::pair<std::string_view, PerCpuDevices> kPerCpuDevices[] = {
    {"physical", PerCpuDevices::physical},
    {"all", PerCpuDevices::all},
    {"none", PerCpuDevices::none}};
constexpr std::pair<std::string_view, AttachMode> kAttachModes[] = {
    {"auto", AttachMode::automatic},
    {"tp_btf", AttachMode::tp_btf},
    {"tracepoint", AttachMode::tracepoint}};

// Calls handle(reader, name, key, value) for each entry of the mapping `map`,
// refusing unknown and repeated keys. `prefix` names the enclosing key
// ("devices.") in messages.
template <typename Handler>
void for_each_entry(const std::string& source, const YAML::Node& map, const YAML::Mark& map_mark,
                    const std::string& prefix, const std::set<std::string>& known,
                    Handler&& handle) {
  if (!map.IsMap()) {
    const std::string key = prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1);
    fail_at(source, map.IsNull() ? map_mark : map.Mark(), key,
            "expected a mapping of keys to values");
  }
  std::set<std::string> seen;
  for (const auto& entry : map) {
    const std::string name = entry.first.Scalar();
    const std::string key = prefix + name;
    const Reader reader(source, entry.first.Mark());
    if (!known.count(name)) reader.unknown_key(entry.first, key, known);
    if (!seen.insert(name).second) fail_at(source, entry.first.Mark(), key, "given twice");
    handle(reader, name, key, entry.second, entry.first.Mark());
  }
}

void parse_attribution(const std::string& source, const YAML::Node& value,
                       const YAML::Mark& key_mark, AttributionConfig& out) {
  const std::set<std::string> known{
      "enabled",       "refresh_interval", "bundle_roots",   "proc_root",     "pod_logs_root",
      "machines_root", "processes",        "max_namespaces", "max_processes", "copy_labels"};
  for_each_entry(
      source, value, key_mark, "attribution.", known,
      [&](const Reader& reader, const std::string& name, const std::string& key,
          const YAML::Node& node, const YAML::Mark&) {
        if (name == "enabled") {
          out.enabled = reader.boolean(node, key);
        } else if (name == "refresh_interval") {
          out.refresh_interval =
              reader.duration(node, key, kAttributionMinInterval, kMaxAttributionRefresh);
        } else if (name == "bundle_roots") {
          out.bundle_roots = reader.path_list(node, key);
        } else if (name == "proc_root") {
          out.proc_root = reader.path(node, key);
        } else if (name == "pod_logs_root") {
          out.pod_logs_root = reader.path(node, key);
        } else if (name == "machines_root") {
          out.machines_root = reader.path(node, key);
        } else if (name == "processes") {
          out.processes = reader.boolean(node, key);
        } else if (name == "max_namespaces") {
          out.max_namespaces =
              static_cast<std::uint32_t>(reader.integer(node, key, 1, kMaxAttributionLimit));
        } else if (name == "max_processes") {
          out.max_processes =
              static_cast<std::uint32_t>(reader.integer(node, key, 1, kMaxAttributionLimit));
        } else {
          out.copy_labels = reader.boolean(node, key);
        }
      });
}

// per_cpu: {devices, include}, or the boolean of before 1.0 (true = all,
// false = none), accepted with a warning.
void parse_per_cpu(const std::string& source, const Reader& reader, const YAML::Node& value,
                   const YAML::Mark& key_mark, Config& config) {
  if (value.IsScalar()) {
    const bool all = reader.boolean(value, "per_cpu");
    config.per_cpu = {all ? PerCpuDevices::all : PerCpuDevices::none, {}};
    config.warnings.push_back(source + ": per_cpu: " + (all ? "true" : "false") +
                              " is deprecated; write per_cpu: {devices: " + (all ? "all" : "none") +
                              "}");
    return;
  }
  for_each_entry(source, value, key_mark, "per_cpu.", {"devices", "include"},
                 [&](const Reader& sub_reader, const std::string& sub, const std::string& sub_key,
                     const YAML::Node& sub_value, const YAML::Mark&) {
                   if (sub == "devices") {
                     config.per_cpu.devices = sub_reader.choice(sub_value, sub_key, kPerCpuDevices);
                   } else {
                     config.per_cpu.include = sub_reader.regex_list(sub_value, sub_key);
                   }
                 });
}

}  // namespace

Config parse_config(std::string_view yaml_text, const std::string& source) {
  const YAML::Node root = load_single_document(yaml_text, source);

  Config config;
  if (root.IsNull()) return config;  // an empty file means the defaults
  if (!root.IsMap()) fail_at(source, root.Mark(), "", "expected a mapping of keys to values");

  const std::set<std::string> known{
      "poll_interval", "namespaces",  "per_cpu", "max_devices", "netns_blocks", "netns_block_slots",
      "attach",        "stale_after", "devices", "bpf_stats",   "attribution",  "max_series"};
  for_each_entry(
      source, root, root.Mark(), "", known,
      [&](const Reader& reader, const std::string& name, const std::string& key,
          const YAML::Node& value, const YAML::Mark& key_mark) {
        if (name == "poll_interval") {
          config.poll_interval = reader.duration(value, key, kMinPollInterval, kMaxPollInterval);
        } else if (name == "namespaces") {
          config.namespaces = reader.choice(value, key, kNamespaceModes);
        } else if (name == "per_cpu") {
          parse_per_cpu(source, reader, value, key_mark, config);
        } else if (name == "max_series") {
          config.max_series =
              static_cast<std::uint32_t>(reader.integer(value, key, kMinMaxSeries, kMaxMaxSeries));
        } else if (name == "max_devices") {
          config.max_devices =
              static_cast<std::uint32_t>(reader.integer(value, key, 1, kMaxDevicesLimit));
        } else if (name == "netns_blocks") {
          config.netns_blocks =
              static_cast<std::uint32_t>(reader.integer(value, key, 0, NETIF_RX_MAX_NETNS_BLOCKS));
        } else if (name == "netns_block_slots") {
          config.netns_block_slots = static_cast<std::uint32_t>(
              reader.integer(value, key, 1, NETIF_RX_MAX_NETNS_BLOCK_SLOTS));
        } else if (name == "attach") {
          config.attach = reader.choice(value, key, kAttachModes);
        } else if (name == "stale_after") {
          config.stale_after = reader.duration(value, key, kMinStaleAfter, kMaxStaleAfter);
        } else if (name == "devices") {
          for_each_entry(
              source, value, key_mark, "devices.", {"include", "exclude"},
              [&](const Reader& sub_reader, const std::string& sub, const std::string& sub_key,
                  const YAML::Node& sub_value, const YAML::Mark&) {
                auto& list = sub == "include" ? config.devices.include : config.devices.exclude;
                list = sub_reader.regex_list(sub_value, sub_key);
              });
        } else if (name == "bpf_stats") {
          for_each_entry(
              source, value, key_mark, "bpf_stats.", {"mode", "window", "period"},
              [&](const Reader& sub_reader, const std::string& sub, const std::string& sub_key,
                  const YAML::Node& sub_value, const YAML::Mark&) {
                if (sub == "mode") {
                  config.bpf_stats.mode = sub_reader.choice(sub_value, sub_key, kBpfStatsModes);
                } else if (sub == "window") {
                  config.bpf_stats.window =
                      sub_reader.duration(sub_value, sub_key, kMinStatsWindow, kMaxStatsPeriod);
                } else {
                  config.bpf_stats.period =
                      sub_reader.duration(sub_value, sub_key, kMinStatsWindow, kMaxStatsPeriod);
                }
              });
          if (config.bpf_stats.window >= config.bpf_stats.period) {
            fail_at(source, key_mark, key,
                    "window (" + format_duration(config.bpf_stats.window) +
                        ") must be shorter than period (" +
                        format_duration(config.bpf_stats.period) + ")");
          }
        } else if (name == "attribution") {
          parse_attribution(source, value, key_mark, config.attribution);
        }
      });
  if (std::uint64_t{config.netns_blocks} * config.netns_block_slots > NETIF_RX_MAX_NETNS_SLOTS) {
    fail_at(source, root.Mark(), "netns_blocks",
            "netns_blocks x netns_block_slots is " +
                std::to_string(std::uint64_t{config.netns_blocks} * config.netns_block_slots) +
                " slots; at most " + std::to_string(NETIF_RX_MAX_NETNS_SLOTS) +
                ": lower one of them");
  }
  return config;
}

Config load_config_file(const std::string& path) {
  return parse_config(read_config_text(path, "configuration file", "--config.file"), path);
}

Config load_config(const std::optional<std::string>& path) {
  return path ? load_config_file(*path) : Config{};
}

std::string_view to_string(NamespaceMode mode) {
  return mode == NamespaceMode::all ? "all" : "host";
}

std::string_view to_string(BpfStatsMode mode) {
  switch (mode) {
    case BpfStatsMode::always:
      return "always";
    case BpfStatsMode::off:
      return "off";
    case BpfStatsMode::sampled:
      break;
  }
  return "sampled";
}

std::string_view to_string(PerCpuDevices devices) {
  switch (devices) {
    case PerCpuDevices::all:
      return "all";
    case PerCpuDevices::none:
      return "none";
    case PerCpuDevices::physical:
      break;
  }
  return "physical";
}

std::string_view to_string(AttachMode mode) {
  switch (mode) {
    case AttachMode::tp_btf:
      return "tp_btf";
    case AttachMode::tracepoint:
      return "tracepoint";
    case AttachMode::automatic:
      break;
  }
  return "auto";
}

}  // namespace netif_rx
