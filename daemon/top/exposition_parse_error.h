// The error thrown by the functions of top/exposition_parser.h.
#pragma once

#include <stdexcept>

namespace netif_rx {

// Text that is not exposition format; what() names the line and the problem.
class ExpositionParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace netif_rx
