// An errno as people read it in a one-line error: "No such file or directory
// (errno 2)".
#pragma once

#include <string>

namespace netif_rx {

// `error` may be negative (libbpf's -errno).
std::string errno_text(int error);

}  // namespace netif_rx
