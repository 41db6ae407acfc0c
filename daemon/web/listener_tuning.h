// Kernel-side defences of the listening sockets civetweb opens.
#pragma once

#include <vector>

namespace netif_rx {

// Sets TCP_DEFER_ACCEPT on every listening TCP socket of this process bound
// to one of `ports`: the kernel completes the handshake but hands the
// connection to accept() only once the client has sent data, so silent
// connections (port scanners, half-open checks) never take a worker. After
// `seconds` the kernel gives them to accept() anyway. Returns how many
// sockets it set.
int defer_accept_on_listeners(const std::vector<int>& ports, int seconds);

// Raises the soft RLIMIT_NOFILE to the hard limit, as Go programs do at
// startup; returns the new soft limit.
unsigned long raise_open_file_limit();

}  // namespace netif_rx
