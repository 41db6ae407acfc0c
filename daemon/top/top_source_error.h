// The error thrown by the functions of top/top_source.h.
#pragma once

#include <stdexcept>

namespace netif_rx {

// A reading failed; what() is one line. Loading the probe throws ProbeError.
class TopSourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace netif_rx
