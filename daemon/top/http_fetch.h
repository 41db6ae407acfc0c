// A small HTTP/1.1 client for one GET of an http:// URL (no TLS, no
// redirects): enough to read a running exporter's /metrics.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "top/http_fetch_error.h"

namespace netif_rx {

struct HttpUrl {
  std::string host;  // a name, an IPv4 address, or an IPv6 address without brackets
  std::string port = "80";
  std::string target = "/";  // path and query
};

// Parses "http://host[:port][/path]"; nullopt when it isn't one.
std::optional<HttpUrl> parse_http_url(std::string_view url);

struct HttpResponse {
  int status = 0;
  std::string reason;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;                            // de-chunked
};

// Parses a complete response (the server closed the connection after it).
// Throws HttpFetchError. Pure.
HttpResponse parse_http_response(std::string_view raw);

// GET `url` and return the response, whatever its status. Throws
// HttpFetchError when the URL is bad, the host can't be resolved or reached,
// or the whole exchange takes longer than `timeout`.
HttpResponse http_get(const std::string& url, std::chrono::milliseconds timeout);

}  // namespace netif_rx
