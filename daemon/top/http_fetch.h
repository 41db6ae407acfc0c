// A small HTTP/1.1 client for one GET of an http:// or https:// URL (no
// redirects): enough to read a running exporter's /metrics, with basic auth
// and a CA to trust, within a deadline and size limits.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "top/http_fetch_error.h"
#include "top/http_response.h"
#include "top/http_url.h"

namespace netif_rx {

struct HttpClientOptions {
  std::chrono::milliseconds timeout{5000};  // the whole exchange
  HttpLimits limits;
  std::string ca_file;              // https: the CA certificates to trust; empty: the system's
  std::optional<std::string> user;  // basic auth, with `password`
  std::string password;
};

// The value of an "Authorization: Basic ..." header for `user` and `password`.
std::string basic_authorization(const std::string& user, const std::string& password);

// GET `url` and return the response, whatever its status. Throws
// HttpFetchError (one line) when the URL is bad, the host can't be resolved
// or reached, TLS fails, a limit is exceeded, or the whole exchange takes
// longer than the timeout.
HttpResponse http_get(const std::string& url, const HttpClientOptions& options);

}  // namespace netif_rx
