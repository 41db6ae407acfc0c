#include "top/http_url.h"

#include <algorithm>

namespace netif_rx {
namespace {

// Splits "host[:port]" or "[v6][:port]"; false when malformed.
bool split_authority(std::string_view authority, HttpUrl& parsed) {
  std::string_view port;
  bool has_port = false;
  if (!authority.empty() && authority[0] == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return false;
    parsed.host = authority.substr(1, close - 1);
    const std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') return false;
      port = rest.substr(1);
      has_port = true;
    }
  } else {
    const std::size_t colon = authority.find(':');
    parsed.host = authority.substr(0, colon);
    if (colon != std::string_view::npos) {
      port = authority.substr(colon + 1);
      has_port = true;
    }
  }
  if (parsed.host.empty()) return false;
  if (!has_port) return true;
  if (port.empty() || port.size() > 5 ||
      !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  const int number = std::stoi(std::string(port));
  if (number < 1 || number > 65535) return false;
  parsed.port = std::to_string(number);
  return true;
}

}  // namespace

std::optional<HttpUrl> parse_http_url(std::string_view url) {
  HttpUrl parsed;
  if (url.starts_with("http://")) {
    url.remove_prefix(7);
  } else if (url.starts_with("https://")) {
    url.remove_prefix(8);
    parsed.tls = true;
    parsed.port = "443";
  } else {
    return std::nullopt;
  }
  const std::size_t slash = url.find_first_of("/?#");
  const std::string_view authority = url.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view target = url.substr(slash);
    target = target.substr(0, target.find('#'));
    parsed.target = target.empty() || target[0] != '/' ? "/" + std::string(target) : target;
  }
  if (authority.find('@') != std::string_view::npos) return std::nullopt;  // no credentials
  // Nothing that would end or split the request line.
  for (const char c : url) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return std::nullopt;
  }
  if (!split_authority(authority, parsed)) return std::nullopt;
  return parsed;
}

std::string url_endpoint(const HttpUrl& url) {
  const bool ipv6 = url.host.find(':') != std::string::npos;
  return (ipv6 ? "[" + url.host + "]" : url.host) + ":" + url.port;
}

}  // namespace netif_rx
