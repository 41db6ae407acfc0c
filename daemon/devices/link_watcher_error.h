// The error thrown by the functions of devices/link_watcher.h.
#pragma once

#include <stdexcept>

namespace netif_rx {

// Opening the netlink socket or the first dump failed.
class LinkWatcherError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace netif_rx
