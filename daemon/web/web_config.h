// --web.config.file in the Prometheus exporter-toolkit format:
//
//   tls_server_config: {cert_file, key_file, client_ca_file, client_auth_type, min_version}
//   http_server_config: {headers: {Name: value}}
//   basic_auth_users: {user: bcrypt hash}
//
// Relative file names are relative to the web configuration file's directory.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/config_error.h"

namespace netif_rx {

enum class ClientAuth {
  none,                // NoClientCert
  request,             // RequestClientCert: asked for, not verified
  require_any,         // RequireAnyClientCert: required, not verified
  verify_if_given,     // VerifyClientCertIfGiven
  require_and_verify,  // RequireAndVerifyClientCert
};
enum class TlsVersion { tls12, tls13 };

struct TlsServerConfig {
  std::string cert_file;
  std::string key_file;
  std::string client_ca_file;  // empty: none
  ClientAuth client_auth = ClientAuth::none;
  TlsVersion min_version = TlsVersion::tls12;
};

struct WebConfig {
  std::optional<TlsServerConfig> tls;
  std::map<std::string, std::string> basic_auth_users;  // user -> bcrypt hash
  std::vector<std::pair<std::string, std::string>> headers;
};

// The response headers the exporter-toolkit lets a web configuration set.
bool is_allowed_header(std::string_view name);

// Parses YAML text; `source` names it in messages and its directory anchors
// relative file names. Throws ConfigError ("file:line:col: key 'x': ...").
WebConfig parse_web_config(std::string_view yaml_text, const std::string& source);

// Reads and parses a file. Throws ConfigError.
WebConfig load_web_config_file(const std::string& path);

std::string_view to_string(ClientAuth auth);

}  // namespace netif_rx
