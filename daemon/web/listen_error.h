// The error thrown by the functions of web/listen_address.h.
#pragma once

#include <stdexcept>

namespace netif_rx {

// The address can't be used; what() is one line with the fix.
class ListenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace netif_rx
