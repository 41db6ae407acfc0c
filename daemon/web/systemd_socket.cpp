#include "web/systemd_socket.h"

#include <CivetServer.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <systemd/sd-daemon.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

#include "continuity/service_pin_store.h"
#include "sys/passed_fds.h"
#include "util/log.h"
#include "web/ipv6_listener.h"

namespace netif_rx {
namespace {

constexpr std::size_t kMaxSockets = 16;

struct BoundAddress {
  sockaddr_storage storage{};
  socklen_t length = sizeof(sockaddr_storage);
};

std::optional<BoundAddress> local_address(int fd) {
  BoundAddress address;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address.storage), &address.length) != 0) {
    return std::nullopt;
  }
  return address;
}

std::uint16_t port_of(const BoundAddress& address) {
  if (address.storage.ss_family == AF_INET) {
    return ntohs(reinterpret_cast<const sockaddr_in&>(address.storage).sin_port);
  }
  if (address.storage.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6&>(address.storage).sin6_port);
  }
  return 0;
}

// "HOST:PORT" of a bound socket, with the host civetweb's poke can reach.
ListenAddress describe(const BoundAddress& address) {
  ListenAddress out;
  out.port = port_of(address);
  char text[INET6_ADDRSTRLEN] = {};
  if (address.storage.ss_family == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in&>(address.storage);
    ::inet_ntop(AF_INET, &in.sin_addr, text, sizeof text);
    if (in.sin_addr.s_addr != htonl(INADDR_ANY)) out.host = text;
    out.text = std::string(text) + ":" + std::to_string(out.port);
  } else {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(address.storage);
    ::inet_ntop(AF_INET6, &in6.sin6_addr, text, sizeof text);
    out.text = "[" + std::string(text) + "]:" + std::to_string(out.port);
  }
  return out;
}

// Wakes civetweb's accept loop, still polling the placeholder it had.
void poke_loopback(std::uint16_t port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  (void)::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa);
}

}  // namespace

std::vector<UniqueFd> take_systemd_sockets() {
  // What systemd passed besides the sockets is the probe its file-descriptor
  // store kept (continuity/service_pin_store.h): told apart by name.
  std::vector<PassedFd> passed;
  try {
    passed = take_passed_fds(
        [](const std::string& name) { return name.rfind(kStoredProbePrefix, 0) != 0; });
  } catch (const PassedFdsError& e) {
    throw ListenError(std::string("--web.systemd-socket: ") + e.what());
  }
  const std::size_t count = passed.size();
  if (count == 0) {
    throw ListenError(
        "--web.systemd-socket: systemd passed no socket; start the service through its .socket "
        "unit (systemctl start netif_rx_exporter.socket) or drop the flag");
  }
  std::vector<UniqueFd> sockets;
  sockets.reserve(count);
  for (auto& socket : passed) sockets.push_back(std::move(socket.fd));
  if (sockets.size() > kMaxSockets) {
    throw ListenError("--web.systemd-socket: systemd passed " + std::to_string(count) +
                      " sockets; at most " + std::to_string(kMaxSockets) + " are served");
  }
  for (const auto& socket : sockets) {
    const bool inet = sd_is_socket_inet(socket.get(), AF_UNSPEC, SOCK_STREAM, 1, 0) > 0;
    if (!inet) {
      throw ListenError("--web.systemd-socket: descriptor " + std::to_string(socket.get()) +
                        " is not a listening TCP socket; use ListenStream=[ADDRESS:]PORT in the "
                        ".socket unit");
    }
  }
  return sockets;
}

std::vector<ListenAddress> systemd_socket_placeholders(std::size_t count) {
  std::vector<ListenAddress> placeholders(count);
  for (auto& placeholder : placeholders) {
    placeholder.text = "127.0.0.1:0";
    placeholder.host = "127.0.0.1";
    placeholder.port = 0;
  }
  return placeholders;
}

std::vector<ListenAddress> adopt_systemd_sockets(CivetServer& server,
                                                 std::vector<UniqueFd> sockets) {
  const std::vector<int> ports = server.getListeningPorts();
  if (ports.size() != sockets.size()) {
    throw ListenError("--web.systemd-socket: civetweb bound " + std::to_string(ports.size()) +
                      " placeholders for " + std::to_string(sockets.size()) + " sockets");
  }
  std::vector<ListenAddress> adopted;
  for (std::size_t i = 0; i < sockets.size(); ++i) {
    const auto port = static_cast<std::uint16_t>(ports[i]);
    const auto address = local_address(sockets[i].get());
    if (!address) {
      throw ListenError(std::string("--web.systemd-socket: getsockname: ") + std::strerror(errno));
    }
    // accept() after a poll must not block the accept loop if the client left.
    const int flags = ::fcntl(sockets[i].get(), F_GETFL);
    if (flags >= 0) (void)::fcntl(sockets[i].get(), F_SETFL, flags | O_NONBLOCK);
    if (!replace_listener(port, sockets[i])) {
      throw ListenError(
          "--web.systemd-socket: cannot put the socket in place of civetweb's "
          "listener on 127.0.0.1:" +
          std::to_string(port));
    }
    poke_loopback(port);
    adopted.push_back(describe(*address));
    log::debug("serving a socket systemd passed",
               {{"address", adopted.back().text}, {"stand_in_port", static_cast<int>(port)}});
  }
  return adopted;
}

}  // namespace netif_rx
