#include "web/listen_address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "util/unique_fd.h"

namespace netif_rx {

std::string ListenAddress::civetweb_port() const {
  return host.empty() ? std::to_string(port) : host + ":" + std::to_string(port);
}

ListenAddress parse_listen_address(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return ListenError("--web.listen-address: '" + text + "' " + why);
  };
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) {
    throw bad("has no port; write :PORT, HOST:PORT or 127.0.0.1:PORT");
  }
  ListenAddress address;
  address.text = text;
  std::string host = text.substr(0, colon);
  const std::string port_text = text.substr(colon + 1);

  unsigned port = 0;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port > 65535 ||
      port_text.empty()) {
    throw bad("has an invalid port '" + port_text + "'; use a number from 0 to 65535");
  }
  address.port = static_cast<std::uint16_t>(port);

  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    in6_addr numeric6{};
    if (inet_pton(AF_INET6, host.c_str(), &numeric6) != 1) {
      throw bad("has an invalid IPv6 address '" + host + "'; write [::]:PORT or [::1]:PORT");
    }
    char canonical[INET6_ADDRSTRLEN];
    inet_ntop(AF_INET6, &numeric6, canonical, sizeof canonical);
    address.host = canonical;
    address.ipv6 = true;
    return address;
  }
  if (host.empty() || host == "0.0.0.0") return address;

  in_addr numeric{};
  if (inet_pton(AF_INET, host.c_str(), &numeric) == 1) {
    address.host = host;
    return address;
  }
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0 || !found) {
    throw bad("names a host that does not resolve to an IPv4 address (" +
              std::string(gai_strerror(rc)) + ")");
  }
  char buf[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr, buf, sizeof buf);
  freeaddrinfo(found);
  address.host = buf;
  return address;
}

SocketAddress socket_address_of(const ListenAddress& address) {
  SocketAddress out;
  if (address.ipv6) {
    auto* sa = reinterpret_cast<sockaddr_in6*>(&out.storage);
    sa->sin6_family = AF_INET6;
    sa->sin6_port = htons(address.port);
    inet_pton(AF_INET6, address.host.c_str(), &sa->sin6_addr);
    out.length = sizeof *sa;
    return out;
  }
  auto* sa = reinterpret_cast<sockaddr_in*>(&out.storage);
  sa->sin_family = AF_INET;
  sa->sin_port = htons(address.port);
  sa->sin_addr.s_addr = htonl(INADDR_ANY);
  if (!address.host.empty()) inet_pton(AF_INET, address.host.c_str(), &sa->sin_addr);
  out.length = sizeof *sa;
  return out;
}

void check_can_listen(const ListenAddress& address) {
  UniqueFd fd(::socket(address.ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    throw ListenError("cannot listen on " + address.text + ": socket: " + std::strerror(errno));
  }
  const int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const SocketAddress sa = socket_address_of(address);
  if (::bind(fd.get(), sa.get(), sa.length) != 0) {
    const int err = errno;
    std::string fix;
    if (err == EADDRINUSE) {
      fix = "another process holds the port (see: ss -ltnp 'sport = :" +
            std::to_string(address.port) + "'); choose another with --web.listen-address";
    } else if (err == EACCES) {
      fix = "ports below 1024 need CAP_NET_BIND_SERVICE; choose a higher port";
    } else if (err == EADDRNOTAVAIL && address.ipv6) {
      fix =
          "no interface has that address (is IPv6 enabled? sysctl net.ipv6.conf.all.disable_ipv6)";
    } else if (err == EADDRNOTAVAIL) {
      fix = "no interface has that address; use :PORT to listen on every address";
    } else {
      fix = "check --web.listen-address";
    }
    throw ListenError("cannot listen on " + address.text + ": " + std::strerror(err) + "; " + fix);
  }
}

}  // namespace netif_rx
