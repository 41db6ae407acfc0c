// The error thrown by the functions of top/http_fetch.h and top/http_response.h.
#pragma once

#include <stdexcept>

namespace netif_rx {

// The fetch failed or the answer can't be read; what() is one line.
class HttpFetchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace netif_rx
