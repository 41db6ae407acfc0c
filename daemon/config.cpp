#include "config.h"

#include <fcntl.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <sstream>

#include "unique_fd.h"

namespace netif_rx {
namespace {

// Guards against --config.file=/dev/zero and the like.
constexpr std::size_t kMaxConfigFileSize = 1024 * 1024;  // "1 MiB" in the message

// "file:line:col: key 'name': message" (YAML marks are 0-based).
[[noreturn]] void fail_at(const std::string& source, const YAML::Mark& mark, std::string_view key,
                          std::string_view message) {
  std::ostringstream out;
  out << source;
  if (mark.line >= 0) out << ':' << mark.line + 1 << ':' << mark.column + 1;
  out << ": ";
  if (!key.empty()) out << "key '" << key << "': ";
  out << message;
  throw ConfigError(out.str());
}

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
constexpr std::pair<std::string_view, AttachMode> kAttachModes[] = {
    {"auto", AttachMode::automatic},
    {"tp_btf", AttachMode::tp_btf},
    {"tracepoint", AttachMode::tracepoint}};

}  // namespace

Config parse_config(std::string_view yaml_text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::ParserException& e) {
    fail_at(source, e.mark, "", "invalid YAML: " + e.msg);
  }

  Config config;
  if (root.IsNull()) return config;  // an empty file means the defaults
  if (!root.IsMap()) fail_at(source, root.Mark(), "", "expected a mapping of keys to values");

  const std::set<std::string> known{"poll_interval", "namespaces", "per_cpu", "max_devices",
                                    "attach"};
  std::set<std::string> seen;
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    const YAML::Node& value = entry.second;
    const Reader reader(source, entry.first.Mark());
    if (!known.count(key)) reader.unknown_key(entry.first, key, known);
    if (!seen.insert(key).second) fail_at(source, entry.first.Mark(), key, "given twice");

    if (key == "poll_interval") {
      config.poll_interval = reader.duration(value, key, kMinPollInterval, kMaxPollInterval);
    } else if (key == "namespaces") {
      config.namespaces = reader.choice(value, key, kNamespaceModes);
    } else if (key == "per_cpu") {
      config.per_cpu = reader.boolean(value, key);
    } else if (key == "max_devices") {
      config.max_devices =
          static_cast<std::uint32_t>(reader.integer(value, key, 1, kMaxDevicesLimit));
    } else if (key == "attach") {
      config.attach = reader.choice(value, key, kAttachModes);
    }
  }
  return config;
}

Config load_config_file(const std::string& path) {
  const auto cannot_read = [&](const std::string& why) {
    return ConfigError(path + ": cannot read the configuration file: " + why +
                       "; check --config.file");
  };
  // open() and read() rather than an ifstream: a directory opens fine and
  // only fails to read (EISDIR), which an ifstream would take for an empty
  // file, that is for the defaults.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) throw cannot_read(std::strerror(errno));
  std::string text;
  char buffer[4096];
  while (true) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw cannot_read(std::strerror(errno));
    }
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxConfigFileSize) {
      throw cannot_read("it is larger than 1 MiB");
    }
  }
  return parse_config(text, path);
}

std::string_view to_string(NamespaceMode mode) {
  return mode == NamespaceMode::all ? "all" : "host";
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
