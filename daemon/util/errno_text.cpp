#include "util/errno_text.h"

#include <cstring>

namespace netif_rx {

std::string errno_text(int error) {
  error = error < 0 ? -error : error;
  return std::string(std::strerror(error)) + " (errno " + std::to_string(error) + ")";
}

}  // namespace netif_rx
