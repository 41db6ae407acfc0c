// What the exporter's two YAML files (--config.file, --web.config.file) share:
// reading them safely, loading exactly one document, and the one-line error
// "file:line:column: key 'name': message".
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

namespace netif_rx {

// Throws ConfigError with "source:line:col: key 'key': message" (YAML marks
// are 0-based; an unknown mark is left out, an empty key too).
[[noreturn]] void fail_at(const std::string& source, const YAML::Mark& mark, std::string_view key,
                          std::string_view message);

// Parses text that must hold at most one non-empty YAML document; returns it
// (a null node for empty text). Throws ConfigError.
YAML::Node load_single_document(std::string_view yaml_text, const std::string& source);

// Reads a configuration file of at most 1 MiB. A directory, an unreadable or
// endless file is a ConfigError: "PATH: cannot read the WHAT: why; check FLAG".
std::string read_config_text(const std::string& path, std::string_view what, std::string_view flag);

}  // namespace netif_rx
