#include "web/listen_address.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "error_text.h"
#include "unprivileged.h"
#include "util/unique_fd.h"

namespace netif_rx {
namespace {

// The message of the ListenError that parsing `text` throws, or "" if none.
std::string parse_error_of(const std::string& text) {
  return test::error_text<ListenError>([&] { parse_listen_address(text); });
}

std::string listen_error_of(const ListenAddress& address) {
  return test::error_text<ListenError>([&] { check_can_listen(address); });
}

// A TCP socket listening on 127.0.0.1 on a port the kernel chose.
class HeldPort {
 public:
  HeldPort() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    EXPECT_TRUE(fd_.valid()) << std::strerror(errno);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0)
        << std::strerror(errno);
    EXPECT_EQ(::listen(fd_.get(), 1), 0) << std::strerror(errno);
    socklen_t length = sizeof sa;
    EXPECT_EQ(::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&sa), &length), 0)
        << std::strerror(errno);
    port_ = ntohs(sa.sin_port);
  }
  std::uint16_t port() const { return port_; }

 private:
  UniqueFd fd_;
  std::uint16_t port_ = 0;
};

TEST(ListenAddress, PortAlone) {
  const ListenAddress address = parse_listen_address(":19100");
  EXPECT_EQ(address.text, ":19100");
  EXPECT_EQ(address.host, "");
  EXPECT_EQ(address.port, 19100);
  EXPECT_EQ(address.civetweb_port(), "19100");
}

TEST(ListenAddress, NumericHost) {
  const ListenAddress address = parse_listen_address("127.0.0.1:9");
  EXPECT_EQ(address.text, "127.0.0.1:9");
  EXPECT_EQ(address.host, "127.0.0.1");
  EXPECT_EQ(address.port, 9);
  EXPECT_EQ(address.civetweb_port(), "127.0.0.1:9");
}

TEST(ListenAddress, EveryAddressIsTheWildcard) {
  const ListenAddress address = parse_listen_address("0.0.0.0:65535");
  EXPECT_EQ(address.host, "");
  EXPECT_EQ(address.port, 65535);
  EXPECT_EQ(address.civetweb_port(), "65535");
}

TEST(ListenAddress, PortZero) { EXPECT_EQ(parse_listen_address(":0").port, 0); }

TEST(ListenAddress, ResolvesAHostName) {
  const ListenAddress address = parse_listen_address("localhost:80");
  EXPECT_EQ(address.text, "localhost:80");
  EXPECT_EQ(address.host, "127.0.0.1");
  EXPECT_EQ(address.port, 80);
  EXPECT_EQ(address.civetweb_port(), "127.0.0.1:80");
}

TEST(ListenAddress, IPv6) {
  const ListenAddress loopback = parse_listen_address("[::1]:1");
  EXPECT_TRUE(loopback.ipv6);
  EXPECT_EQ(loopback.host, "::1");
  EXPECT_EQ(loopback.port, 1);
  const ListenAddress any = parse_listen_address("[0:0::0]:19100");
  EXPECT_TRUE(any.ipv6);
  EXPECT_EQ(any.host, "::");  // canonical
  EXPECT_EQ(socket_address_of(any).storage.ss_family, AF_INET6);
  EXPECT_EQ(parse_error_of("[::g]:1"),
            "--web.listen-address: '[::g]:1' has an invalid IPv6 address '::g'; write [::]:PORT "
            "or [::1]:PORT");
  EXPECT_FALSE(parse_listen_address("127.0.0.1:1").ipv6);
}

TEST(ListenAddress, RejectsNoPort) {
  EXPECT_EQ(parse_error_of("localhost"),
            "--web.listen-address: 'localhost' has no port; write :PORT, HOST:PORT or "
            "127.0.0.1:PORT");
  EXPECT_EQ(parse_error_of("19100"),
            "--web.listen-address: '19100' has no port; write :PORT, HOST:PORT or "
            "127.0.0.1:PORT");
  EXPECT_EQ(parse_error_of(""),
            "--web.listen-address: '' has no port; write :PORT, HOST:PORT or 127.0.0.1:PORT");
}

TEST(ListenAddress, RejectsABadPort) {
  for (const std::string port : {"", "65536", "-1", "http", "80x", " 80", "99999999999"}) {
    EXPECT_EQ(parse_error_of("127.0.0.1:" + port), "--web.listen-address: '127.0.0.1:" + port +
                                                       "' has an invalid port '" + port +
                                                       "'; use a number from 0 to 65535")
        << port;
  }
}

TEST(ListenAddress, RejectsAHostThatDoesNotResolve) {
  // An empty label makes the name invalid before any DNS query is sent.
  const std::string message = parse_error_of("a..b:80");
  EXPECT_EQ(message.rfind("--web.listen-address: 'a..b:80' names a host that does not "
                          "resolve to an IPv4 address (",
                          0),
            0U)
      << message;
  EXPECT_EQ(message.back(), ')') << message;
}

// A port the kernel just handed out and nobody holds.
std::uint16_t free_port() {
  const HeldPort held;
  return held.port();
}

// Whether a listening socket (without SO_REUSEADDR) can take 127.0.0.1:port.
bool can_take(std::uint16_t port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sa.sin_port = htons(port);
  return fd.valid() && ::bind(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0 &&
         ::listen(fd.get(), 1) == 0;
}

TEST(CheckCanListen, AcceptsAFreePortAndLeavesItFree) {
  const std::uint16_t port = free_port();
  const ListenAddress address = parse_listen_address("127.0.0.1:" + std::to_string(port));
  EXPECT_EQ(address.host, "127.0.0.1");
  EXPECT_EQ(address.port, port);
  EXPECT_FALSE(address.ipv6);
  EXPECT_EQ(listen_error_of(address), "");
  // The check's socket is closed: the server can bind the port after it.
  EXPECT_TRUE(can_take(port)) << std::strerror(errno);
}

TEST(CheckCanListen, RejectsAPortInUse) {
  const HeldPort held;
  const std::string port = std::to_string(held.port());
  const std::string message = listen_error_of(parse_listen_address("127.0.0.1:" + port));
  EXPECT_EQ(message, "cannot listen on 127.0.0.1:" + port +
                         ": Address already in use; another process holds the port (see: ss "
                         "-ltnp 'sport = :" +
                         port + "'); choose another with --web.listen-address");
}

TEST(CheckCanListen, RejectsTheWildcardWhenLoopbackHoldsThePort) {
  const HeldPort held;
  const std::string message =
      listen_error_of(parse_listen_address(":" + std::to_string(held.port())));
  EXPECT_NE(message.find("Address already in use"), std::string::npos) << message;
  EXPECT_NE(message.find("--web.listen-address"), std::string::npos) << message;
}

TEST(CheckCanListen, RejectsAnAddressOfNoInterface) {
  // 203.0.113.0/24 is TEST-NET-3: documentation only, on no interface (the integration tests
  // running beside this one give TEST-NET-1 and TEST-NET-2 addresses to their veths; none this).
  EXPECT_EQ(listen_error_of(parse_listen_address("203.0.113.254:0")),
            "cannot listen on 203.0.113.254:0: Cannot assign requested address; no interface has "
            "that address; use :PORT to listen on every address");
}

TEST(CheckCanListen, RejectsAPrivilegedPortWithoutTheCapability) {
  unsigned first_unprivileged = 1024;
  std::ifstream("/proc/sys/net/ipv4/ip_unprivileged_port_start") >> first_unprivileged;
  if (first_unprivileged <= 1) GTEST_SKIP() << "every port is unprivileged here";
  EXPECT_EQ(test::as_unprivileged_user(
                [] { return listen_error_of(parse_listen_address("127.0.0.1:1")); }),
            "cannot listen on 127.0.0.1:1: Permission denied; ports below 1024 need "
            "CAP_NET_BIND_SERVICE; choose a higher port");
}

}  // namespace
}  // namespace netif_rx
