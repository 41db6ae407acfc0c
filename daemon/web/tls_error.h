// The error thrown by the functions of web/tls_context.h.
#pragma once

#include <stdexcept>

namespace netif_rx {

// Certificates or keys that can't be used; what() names the file and why.
class TlsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace netif_rx
