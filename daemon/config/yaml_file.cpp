#include "config/yaml_file.h"

#include <fcntl.h>
#include <unistd.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

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

// Counts documents and ignores everything else. yaml-cpp 0.7's LoadAll
// never returns on some malformed texts (found by fuzzing: "&a,b" yields
// empty documents without end), so the documents are counted first, with a
// bound, and LoadAll runs only on a text whose count ends.
class DocumentCounter final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

constexpr int kMaxDocuments = 16;

void check_document_count(std::string_view yaml_text, const std::string& source) {
  std::istringstream stream{std::string(yaml_text)};
  YAML::Parser parser(stream);
  DocumentCounter counter;
  for (int documents = 0; parser.HandleNextDocument(counter);) {
    if (++documents > kMaxDocuments) {
      throw ConfigError(source + ": invalid YAML: more than " + std::to_string(kMaxDocuments) +
                        " documents, or text the YAML parser cannot read");
    }
  }
}

YAML::Node load_single_document(std::string_view yaml_text, const std::string& source) {
  // YAML has no NUL character, and yaml-cpp 0.7 loops without end on one
  // (allocating all the while): refuse it before the parser sees it.
  if (const std::size_t nul = yaml_text.find('\0'); nul != std::string_view::npos) {
    throw ConfigError(source + ": a NUL byte at offset " + std::to_string(nul) +
                      "; this is not a YAML text file");
  }
  std::vector<YAML::Node> documents;
  try {
    check_document_count(yaml_text, source);
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
