// --web.listen-address values: ":PORT", "HOST:PORT" (IPv4 only; "[IPv6]:PORT" is rejected).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "web/listen_error.h"

namespace netif_rx {

struct ListenAddress {
  std::string text;  // as given, for messages
  std::string host;  // numeric IPv4 address; empty = every address
  std::uint16_t port = 0;
  // The form civetweb's listening_ports option takes.
  std::string civetweb_port() const;
};

// Parses and resolves (a host name resolves to its first IPv4 address).
// Throws ListenError.
ListenAddress parse_listen_address(const std::string& text);

// Binds and closes a socket on the address, to turn "port in use" and
// "permission denied" into one clear line before the server starts.
// Throws ListenError.
void check_can_listen(const ListenAddress& address);

}  // namespace netif_rx
