#include "web/ipv6_listener.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "web/listener_tuning.h"
#include "web/process_listeners.h"

namespace netif_rx {
namespace {

// A listener on 127.0.0.1 and a port the kernel picks, as civetweb's stand-in.
UniqueFd loopback_listener(int& port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0)
      << std::strerror(errno);
  EXPECT_EQ(::listen(fd.get(), 1), 0);
  ProcessListener described;
  EXPECT_TRUE(describe_listener(fd.get(), described));
  port = described.port;
  return fd;
}

TEST(Ipv6Listener, TakesTheStandInsPlace) {
  int stand_in_port = 0;
  UniqueFd stand_in = loopback_listener(stand_in_port);
  const UniqueFd ipv6 = listen_ipv6(parse_listen_address("[::1]:0"), 16);
  ProcessListener bound;
  ASSERT_TRUE(describe_listener(ipv6.get(), bound));
  EXPECT_EQ(bound.family, AF_INET6);

  ASSERT_TRUE(replace_listener(stand_in_port, ipv6));
  ProcessListener now;
  ASSERT_TRUE(describe_listener(stand_in.get(), now));  // same descriptor number
  EXPECT_EQ(now.family, AF_INET6);
  EXPECT_EQ(now.port, bound.port);
  EXPECT_FALSE(replace_listener(stand_in_port, ipv6));  // the stand-in is gone
}

TEST(Ipv6Listener, DeferredAcceptOnTheListenersOfAPort) {
  int port = 0;
  const UniqueFd listener = loopback_listener(port);
  EXPECT_EQ(defer_accept_on_listeners({port}, 300), 1);
  int seconds = 0;
  socklen_t length = sizeof seconds;
  ASSERT_EQ(::getsockopt(listener.get(), IPPROTO_TCP, TCP_DEFER_ACCEPT, &seconds, &length), 0);
  EXPECT_GE(seconds, 300);  // the kernel rounds up to its retransmission steps
  EXPECT_EQ(defer_accept_on_listeners({}, 300), 0);
}

}  // namespace
}  // namespace netif_rx
