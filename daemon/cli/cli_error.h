// The error thrown by the functions of cli/cli.h.
#pragma once

#include <stdexcept>

namespace netif_rx {

// A flag that can't be used; what() is one line saying which and why.
class CliError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace netif_rx
