// --web.systemd-socket: serve on the listening sockets systemd passes
// (socket activation, sd_listen_fds(3)) instead of binding addresses.
//
// civetweb 1.15 can only bind sockets itself; it has no call to adopt one. So,
// as for IPv6 addresses (web/ipv6_listener.h), civetweb first binds one
// placeholder per passed socket (127.0.0.1, an
// ephemeral port), and each placeholder's descriptor is then replaced by the
// passed socket with dup3(): civetweb's accept loop polls and accepts on the
// descriptor number, so from its next poll it serves the passed socket, with
// the connection that activated the service still waiting in its backlog.
#pragma once

#include <vector>

#include "util/unique_fd.h"
#include "web/listen_address.h"

class CivetServer;

namespace netif_rx {

// The listening stream sockets systemd passed ($LISTEN_FDS for $LISTEN_PID);
// unsets the variables so no child inherits them. Throws ListenError when
// there is none or one is not a listening stream socket.
std::vector<UniqueFd> take_systemd_sockets();

// One placeholder per socket, for civetweb's listening_ports.
std::vector<ListenAddress> systemd_socket_placeholders(std::size_t count);

// Puts `sockets` in place of the placeholders civetweb bound (same order) and
// returns the addresses the sockets are bound to. Throws ListenError.
std::vector<ListenAddress> adopt_systemd_sockets(CivetServer& server,
                                                 std::vector<UniqueFd> sockets);

}  // namespace netif_rx
