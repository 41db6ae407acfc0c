// Reading an HTTP/1.x response from untrusted bytes, within limits: the
// headers, the body and every chunk size are bounded, so a hostile or broken
// server costs bounded memory and gets a one-line error. Pure.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "top/http_fetch_error.h"

namespace netif_rx {

struct HttpLimits {
  std::size_t max_header_bytes = 64 * 1024;      // status line and headers
  std::size_t max_body_bytes = 8 * 1024 * 1024;  // as sent, chunk framing included
};

struct HttpResponse {
  int status = 0;
  std::string reason;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;                            // de-chunked
};

// Parses a complete response (the server closed the connection after it).
// Throws HttpFetchError, also when a limit is exceeded.
HttpResponse parse_http_response(std::string_view raw, const HttpLimits& limits = {});

// For a response still arriving: true when `raw` already holds all of it
// (a Content-Length body in full, or a chunked body's last chunk), so that a
// server that keeps the connection open needn't be waited for. Throws
// HttpFetchError as soon as the bytes so far exceed a limit.
bool http_response_complete(std::string_view raw, const HttpLimits& limits);

}  // namespace netif_rx
