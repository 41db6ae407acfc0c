// The error thrown by the functions of probe/probe.h.
#pragma once

#include <stdexcept>

namespace netif_rx {

// Loading or attaching failed; what() is one line naming the step, the
// cause and the fix.
class ProbeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace netif_rx
