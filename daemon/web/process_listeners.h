// The listening TCP sockets of this process. civetweb opens its listeners
// itself and gives no access to them; these are found through /proc/self/fd.
#pragma once

#include <vector>

namespace netif_rx {

struct ProcessListener {
  int fd = -1;  // borrowed: owned by whoever opened it
  int family = 0;
  int port = 0;
  bool ipv4_loopback = false;  // bound to 127.0.0.1
};

std::vector<ProcessListener> process_listeners();

// The family and port a socket is bound to; false when it is not a TCP
// listening socket.
bool describe_listener(int fd, ProcessListener& out);

}  // namespace netif_rx
