#include "config/yaml_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "config/config.h"
#include "util/unique_fd.h"

namespace netif_rx {
namespace {

// Guards against --config.file=/dev/zero and the like.
constexpr std::size_t kMaxConfigFileSize = 1024 * 1024;  // "1 MiB" in the message

}  // namespace

void fail_at(const std::string& source, const YAML::Mark& mark, std::string_view key,
             std::string_view message) {
  std::ostringstream out;
  out << source;
  if (mark.line >= 0) out << ':' << mark.line + 1 << ':' << mark.column + 1;
  out << ": ";
  if (!key.empty()) out << "key '" << key << "': ";
  out << message;
  throw ConfigError(out.str());
}

YAML::Node load_single_document(std::string_view yaml_text, const std::string& source) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(std::string(yaml_text));
  } catch (const YAML::ParserException& e) {
    fail_at(source, e.mark, "", "invalid YAML: " + e.msg);
  }
  // YAML::Load would silently ignore every document after the first. Empty
  // documents (a stray "---") are harmless; a second non-empty one is not.
  YAML::Node root;
  for (const YAML::Node& document : documents) {
    if (document.IsNull()) continue;
    if (!root.IsNull()) {
      fail_at(source, document.Mark(), "",
              "a second YAML document; the configuration is one mapping of keys to values");
    }
    root = document;
  }
  return root;
}

std::string read_config_text(const std::string& path, std::string_view what,
                             std::string_view flag) {
  const auto cannot_read = [&](const std::string& why) {
    return ConfigError(path + ": cannot read the " + std::string(what) + ": " + why + "; check " +
                       std::string(flag));
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
    if (text.size() > kMaxConfigFileSize) throw cannot_read("it is larger than 1 MiB");
  }
  return text;
}

}  // namespace netif_rx
