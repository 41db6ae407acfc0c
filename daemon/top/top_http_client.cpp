#include "top/top_http_client.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "cli/cli.h"

namespace netif_rx {
namespace {

constexpr std::size_t kMaxPasswordBytes = 4096;

// The file's first line (without its newline).
std::string read_password_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw CliError("--from.password-file: cannot read '" + path + "': " + std::strerror(errno));
  }
  std::string text;
  text.resize(kMaxPasswordBytes + 1);
  file.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(file.gcount()));
  if (text.size() > kMaxPasswordBytes) {
    throw CliError("--from.password-file: '" + path + "' is larger than 4096 bytes");
  }
  const std::size_t line_end = text.find_first_of("\r\n");
  if (line_end != std::string::npos) text.resize(line_end);
  if (text.empty()) throw CliError("--from.password-file: '" + path + "' is empty");
  return text;
}

}  // namespace

HttpClientOptions top_http_client_options(const TopFromOptions& from, const char* password_env) {
  HttpClientOptions client;
  client.timeout = from.timeout;
  client.limits.max_body_bytes = from.max_body_bytes;
  client.ca_file = from.ca_file;
  if (!from.user) return client;
  client.user = from.user;
  if (from.password_file) {
    client.password = read_password_file(*from.password_file);
  } else if (password_env != nullptr && *password_env != '\0') {
    client.password = password_env;
  } else {
    throw CliError(
        "--from.user needs a password: put it in a file named by "
        "--from.password-file, or in $" +
        std::string(kTopPasswordEnv));
  }
  return client;
}

}  // namespace netif_rx
