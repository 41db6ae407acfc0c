// A small HTTP/1.1 client for one GET of an http:// URL (no TLS, no
// redirects): enough to read a running exporter's /metrics.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

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

// The fetch failed or the answer can't be read; what() is one line.
class HttpFetchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses a complete response (the server closed the connection after it).
// Throws HttpFetchError. Pure.
HttpResponse parse_http_response(std::string_view raw);

// GET `url` and return the response, whatever its status. Throws
// HttpFetchError when the URL is bad, the host can't be resolved or reached,
// or the whole exchange takes longer than `timeout`.
HttpResponse http_get(const std::string& url, std::chrono::milliseconds timeout);

}  // namespace netif_rx
