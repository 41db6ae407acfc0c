// --web.listen-address values: ":PORT" (every IPv4 address), "HOST:PORT",
// "[IPv6]:PORT" ("[::]:PORT" is dual-stack: IPv6 and IPv4 clients).
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "web/listen_error.h"

namespace netif_rx {

struct ListenAddress {
  std::string text;  // as given, for messages
  std::string host;  // numeric IPv4 or IPv6 address; empty = every IPv4 address
  std::uint16_t port = 0;
  bool ipv6 = false;  // host is an IPv6 address ("::" = dual-stack)
  // The form civetweb's listening_ports option takes (IPv4 addresses only).
  std::string civetweb_port() const;
};

struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
};

// The address to bind to.
SocketAddress socket_address_of(const ListenAddress& address);

// Parses and resolves (a host name resolves to its first IPv4 address; IPv6
// addresses are written numerically in brackets).
// Throws ListenError.
ListenAddress parse_listen_address(const std::string& text);

// Binds and closes a socket on the address, to turn "port in use" and
// "permission denied" into one clear line before the server starts.
// Throws ListenError.
void check_can_listen(const ListenAddress& address);

}  // namespace netif_rx
