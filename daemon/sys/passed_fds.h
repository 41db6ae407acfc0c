// The descriptors systemd passes at start (sd_listen_fds(3)), by name
// ($LISTEN_FDNAMES): a .socket unit's listening sockets and what the
// service's file-descriptor store kept, in one list. Each user takes its own
// by name; the rest stay open and unused.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/unique_fd.h"

namespace netif_rx {

struct PassedFd {
  std::string name;
  UniqueFd fd;
};

class PassedFdsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// At most this many descriptors are accepted from systemd.
constexpr int kMaxPassedFds = 64;

// Takes the passed descriptors whose name `wanted` accepts, in systemd's
// order; a descriptor is taken once. The list is read on the first call
// ($LISTEN_FDS for $LISTEN_PID) and the variables unset, so no child
// inherits them. Throws PassedFdsError when systemd's list is unreadable or
// longer than kMaxPassedFds.
std::vector<PassedFd> take_passed_fds(const std::function<bool(const std::string&)>& wanted);

}  // namespace netif_rx
