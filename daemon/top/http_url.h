// The URL that `top --from` reads: http:// or https://, a host, a port and a
// path. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace netif_rx {

struct HttpUrl {
  bool tls = false;  // https://
  std::string host;  // a name, an IPv4 address, or an IPv6 address without brackets
  std::string port = "80";
  std::string target = "/";  // path and query
};

// Parses "http[s]://host[:port][/path]"; nullopt when it isn't one (or when
// it carries credentials, which belong in flags, not in a URL).
std::optional<HttpUrl> parse_http_url(std::string_view url);

// "host:port", with brackets around an IPv6 address.
std::string url_endpoint(const HttpUrl& url);

}  // namespace netif_rx
