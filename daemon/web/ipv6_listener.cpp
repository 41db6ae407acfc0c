#include "web/ipv6_listener.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "web/process_listeners.h"

namespace netif_rx {

UniqueFd listen_ipv6(const ListenAddress& address, int backlog) {
  const auto failed = [&](const char* step) {
    return ListenError("cannot listen on " + address.text + ": " + step + ": " +
                       std::strerror(errno));
  };
  UniqueFd fd(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) throw failed("socket (is IPv6 enabled in the kernel?)");
  const int one = 1;
  const int v6only = address.host == "::" ? 0 : 1;
  if (::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
      ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only) != 0) {
    throw failed("setsockopt");
  }
  const SocketAddress sa = socket_address_of(address);
  if (::bind(fd.get(), sa.get(), sa.length) != 0) throw failed("bind");
  if (::listen(fd.get(), backlog) != 0) throw failed("listen");
  return fd;
}

bool replace_listener(int port, const UniqueFd& replacement) {
  for (const auto& listener : process_listeners()) {
    if (listener.ipv4_loopback && listener.port == port) {
      return ::dup3(replacement.get(), listener.fd, O_CLOEXEC) >= 0;
    }
  }
  return false;
}

}  // namespace netif_rx
