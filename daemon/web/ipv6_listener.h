// IPv6 listen addresses for a civetweb built without IPv6.
//
// Debian's civetweb 1.15 is built without USE_IPV6 (mg_check_feature(8) is 0)
// and refuses "[::]:PORT". For each IPv6 address civetweb listens on a stand-in
// (127.0.0.1, a port the kernel picks) and we put a socket bound to the IPv6
// address in the stand-in's place: dup3() onto the same descriptor number.
// civetweb polls and accepts that descriptor without looking at its family;
// its master thread picks the new socket up at its next poll (200 ms at most).
#pragma once

#include "util/unique_fd.h"
#include "web/listen_address.h"

namespace netif_rx {

// The stand-in civetweb listens on for an IPv6 address.
inline constexpr const char* kIpv6StandIn = "127.0.0.1:0";

// A listening socket on an IPv6 address: "::" takes IPv4 clients too
// (IPV6_V6ONLY off), any other address only its own. Throws ListenError.
UniqueFd listen_ipv6(const ListenAddress& address, int backlog);

// Puts `replacement` where this process's listening socket on 127.0.0.1:`port`
// is (the descriptor number stays, the stand-in is closed). Returns false if no
// such socket was found.
bool replace_listener(int port, const UniqueFd& replacement);

}  // namespace netif_rx
