// The error thrown by the functions of config/config.h.
#pragma once

#include <stdexcept>

namespace netif_rx {

// A configuration that can't be used. what() is one line naming the file,
// line, column and key, and what is expected.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace netif_rx
