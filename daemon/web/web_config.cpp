#include "web/web_config.h"

#include <strings.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <set>
#include <sstream>

#include "config/yaml_file.h"

namespace netif_rx {
namespace {

constexpr std::pair<std::string_view, ClientAuth> kClientAuths[] = {
    {"NoClientCert", ClientAuth::none},
    {"RequestClientCert", ClientAuth::request},
    {"RequireAnyClientCert", ClientAuth::require_any},
    {"VerifyClientCertIfGiven", ClientAuth::verify_if_given},
    {"RequireAndVerifyClientCert", ClientAuth::require_and_verify}};
constexpr std::pair<std::string_view, TlsVersion> kTlsVersions[] = {{"TLS12", TlsVersion::tls12},
                                                                    {"TLS13", TlsVersion::tls13}};

class Parser {
 public:
  explicit Parser(const std::string& source) : source_(source) {
    const auto slash = source.rfind('/');
    directory_ = slash == std::string::npos ? "" : source.substr(0, slash + 1);
  }

  WebConfig parse(const YAML::Node& root) {
    WebConfig config;
    if (root.IsNull()) return config;
    each(root, root.Mark(), "", {"tls_server_config", "http_server_config", "basic_auth_users"},
         [&](const std::string& name, const std::string& key, const YAML::Node& value,
             const YAML::Mark& mark) {
           if (name == "tls_server_config") {
             config.tls = tls(value, mark);
           } else if (name == "http_server_config") {
             each(value, mark, "http_server_config.", {"headers"},
                  [&](const std::string&, const std::string& sub_key, const YAML::Node& headers,
                      const YAML::Mark& headers_mark) {
                    config.headers = parse_headers(headers, headers_mark, sub_key);
                  });
           } else {
             config.basic_auth_users = users(value, mark, key);
           }
         });
    return config;
  }

 private:
  template <typename Handler>
  void each(const YAML::Node& map, const YAML::Mark& map_mark, const std::string& prefix,
            const std::set<std::string>& known, Handler&& handle) {
    const std::string parent = prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1);
    if (map.IsNull()) return;  // "key:" alone: nothing set
    if (!map.IsMap()) fail_at(source_, map.Mark(), parent, "expected a mapping of keys to values");
    std::set<std::string> seen;
    for (const auto& entry : map) {
      const std::string name = entry.first.Scalar();
      const std::string key = prefix + name;
      if (!known.count(name)) {
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        fail_at(source_, entry.first.Mark(), key,
                "unknown or unsupported key; valid keys are " + list);
      }
      if (!seen.insert(name).second) fail_at(source_, entry.first.Mark(), key, "given twice");
      handle(name, key, entry.second, entry.first.Mark());
    }
    (void)map_mark;
  }

  std::string scalar(const YAML::Node& node, const YAML::Mark& key_mark, const std::string& key,
                     std::string_view expected) {
    if (node.IsNull())
      fail_at(source_, key_mark, key, "has no value; expected " + std::string(expected));
    if (!node.IsScalar()) fail_at(source_, node.Mark(), key, "expected " + std::string(expected));
    return node.Scalar();
  }

  std::string path(const YAML::Node& node, const YAML::Mark& key_mark, const std::string& key) {
    std::string text = scalar(node, key_mark, key, "a file name");
    if (text.empty()) fail_at(source_, node.Mark(), key, "is empty; expected a file name");
    return text[0] == '/' ? text : directory_ + text;
  }

  template <typename Enum, std::size_t N>
  Enum choice(const YAML::Node& node, const YAML::Mark& key_mark, const std::string& key,
              const std::pair<std::string_view, Enum> (&choices)[N]) {
    const std::string text = scalar(node, key_mark, key, "a string");
    std::string names;
    for (const auto& [name, value] : choices) {
      if (text == name) return value;
      names += (names.empty() ? "" : ", ") + std::string(name);
    }
    fail_at(source_, node.Mark(), key, "'" + text + "' is not valid; expected one of " + names);
  }

  TlsServerConfig tls(const YAML::Node& node, const YAML::Mark& mark) {
    TlsServerConfig tls;
    YAML::Mark auth_mark = mark;
    YAML::Mark ca_mark = mark;
    bool has_cert = false;
    bool has_key = false;
    each(node, mark, "tls_server_config.",
         {"cert_file", "key_file", "client_ca_file", "client_auth_type", "min_version"},
         [&](const std::string& name, const std::string& key, const YAML::Node& value,
             const YAML::Mark& key_mark) {
           if (name == "cert_file") {
             tls.cert_file = path(value, key_mark, key);
             has_cert = true;
           } else if (name == "key_file") {
             tls.key_file = path(value, key_mark, key);
             has_key = true;
           } else if (name == "client_ca_file") {
             tls.client_ca_file = path(value, key_mark, key);
             ca_mark = key_mark;
           } else if (name == "client_auth_type") {
             tls.client_auth = choice(value, key_mark, key, kClientAuths);
             auth_mark = key_mark;
           } else {
             tls.min_version = choice(value, key_mark, key, kTlsVersions);
           }
         });
    if (!has_cert)
      fail_at(source_, mark, "tls_server_config.cert_file", "missing; TLS needs a certificate");
    if (!has_key)
      fail_at(source_, mark, "tls_server_config.key_file",
              "missing; TLS needs the certificate's key");
    const bool verifies = tls.client_auth == ClientAuth::verify_if_given ||
                          tls.client_auth == ClientAuth::require_and_verify;
    if (verifies && tls.client_ca_file.empty()) {
      fail_at(source_, auth_mark, "tls_server_config.client_auth_type",
              std::string(to_string(tls.client_auth)) + " needs client_ca_file");
    }
    if (!tls.client_ca_file.empty() && tls.client_auth == ClientAuth::none) {
      fail_at(source_, ca_mark, "tls_server_config.client_ca_file",
              "client_ca_file is set but client_auth_type is NoClientCert; set client_auth_type "
              "(e.g. RequireAndVerifyClientCert)");
    }
    return tls;
  }

  std::vector<std::pair<std::string, std::string>> parse_headers(const YAML::Node& node,
                                                                 const YAML::Mark& mark,
                                                                 const std::string& key) {
    std::vector<std::pair<std::string, std::string>> headers;
    if (node.IsNull()) return headers;
    if (!node.IsMap())
      fail_at(source_, node.Mark(), key, "expected a mapping of header names to values");
    for (const auto& entry : node) {
      const std::string name = entry.first.Scalar();
      const std::string header_key = key + "." + name;
      if (!is_allowed_header(name)) {
        fail_at(source_, entry.first.Mark(), header_key,
                "this header can't be set; allowed: Content-Security-Policy, X-Frame-Options, "
                "X-Content-Type-Options, X-XSS-Protection, Strict-Transport-Security");
      }
      const std::string value = scalar(entry.second, entry.first.Mark(), header_key, "a string");
      if (value.find_first_of("\r\n") != std::string::npos) {
        fail_at(source_, entry.second.Mark(), header_key, "a header value can't hold a line break");
      }
      for (const auto& [existing, ignored] : headers) {
        if (strcasecmp(existing.c_str(), name.c_str()) == 0) {
          fail_at(source_, entry.first.Mark(), header_key, "given twice");
        }
      }
      headers.emplace_back(name, value);
    }
    (void)mark;
    return headers;
  }

  std::map<std::string, std::string> users(const YAML::Node& node, const YAML::Mark& mark,
                                           const std::string& key) {
    std::map<std::string, std::string> users;
    if (node.IsNull()) return users;
    if (!node.IsMap())
      fail_at(source_, node.Mark(), key, "expected a mapping of user names to bcrypt hashes");
    for (const auto& entry : node) {
      const std::string user = entry.first.Scalar();
      const std::string user_key = key + "." + user;
      if (user.empty() || user.find(':') != std::string::npos) {
        fail_at(source_, entry.first.Mark(), user_key, "a user name can't be empty or hold ':'");
      }
      const std::string hash = scalar(entry.second, entry.first.Mark(), user_key, "a bcrypt hash");
      const bool bcrypt = hash.size() == 60 && hash[0] == '$' && hash[1] == '2' &&
                          (hash[2] == 'a' || hash[2] == 'b' || hash[2] == 'y') && hash[3] == '$' &&
                          std::isdigit(static_cast<unsigned char>(hash[4])) &&
                          std::isdigit(static_cast<unsigned char>(hash[5])) && hash[6] == '$';
      if (!bcrypt) {
        fail_at(source_, entry.second.Mark(), user_key,
                "not a bcrypt hash; expected $2y$/$2b$/$2a$ and 60 characters (htpasswd -nBC 10 "
                "user)");
      }
      // A cost bcrypt refuses would make the user's check fail at once,
      // telling that user apart by timing: refuse it here.
      const int cost = std::stoi(hash.substr(4, 2));
      if (cost < 4 || cost > 31) {
        fail_at(source_, entry.second.Mark(), user_key,
                "bcrypt cost " + hash.substr(4, 2) + " is out of range; must be between 04 and 31");
      }
      if (!users.emplace(user, hash).second)
        fail_at(source_, entry.first.Mark(), user_key, "given twice");
    }
    (void)mark;
    return users;
  }

  const std::string& source_;
  std::string directory_;
};

}  // namespace

bool is_allowed_header(std::string_view name) {
  static const char* const kAllowed[] = {"Content-Security-Policy", "X-Frame-Options",
                                         "X-Content-Type-Options", "X-XSS-Protection",
                                         "Strict-Transport-Security"};
  return std::any_of(std::begin(kAllowed), std::end(kAllowed), [&](const char* allowed) {
    return name.size() == std::char_traits<char>::length(allowed) &&
           strncasecmp(name.data(), allowed, name.size()) == 0;
  });
}

WebConfig parse_web_config(std::string_view yaml_text, const std::string& source) {
  const YAML::Node root = load_single_document(yaml_text, source);
  if (!root.IsNull() && !root.IsMap()) {
    fail_at(source, root.Mark(), "", "expected a mapping of keys to values");
  }
  return Parser(source).parse(root);
}

WebConfig load_web_config_file(const std::string& path) {
  return parse_web_config(read_config_text(path, "web configuration file", "--web.config.file"),
                          path);
}

std::string_view to_string(ClientAuth auth) {
  for (const auto& [name, value] : kClientAuths) {
    if (value == auth) return name;
  }
  return "NoClientCert";
}

}  // namespace netif_rx
