#include "bulk_traffic.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <sstream>
#include <vector>

#include "command.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

namespace netif_rx::test {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kTimeLimit = std::chrono::seconds(30);

// Closes a descriptor when it goes.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

struct Endpoint {
  sockaddr_storage address{};
  socklen_t length = 0;
  int family = AF_UNSPEC;
};

Endpoint endpoint_of(const std::string& text, std::uint16_t port) {
  Endpoint endpoint;
  if (text.find(':') != std::string::npos) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&endpoint.address);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(port);
    if (::inet_pton(AF_INET6, text.c_str(), &in6->sin6_addr) == 1) {
      endpoint.length = sizeof(sockaddr_in6);
      endpoint.family = AF_INET6;
    }
  } else {
    auto* in4 = reinterpret_cast<sockaddr_in*>(&endpoint.address);
    in4->sin_family = AF_INET;
    in4->sin_port = htons(port);
    if (::inet_pton(AF_INET, text.c_str(), &in4->sin_addr) == 1) {
      endpoint.length = sizeof(sockaddr_in);
      endpoint.family = AF_INET;
    }
  }
  return endpoint;
}

std::uint16_t port_of(int sock) {
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  ::getsockname(sock, reinterpret_cast<sockaddr*>(&bound), &length);
  return bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                     : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
}

// A socket of `type` bound to `address` on a port the kernel picks; -1 on failure.
int bound_socket(const std::string& address, int type, std::string& error) {
  Endpoint endpoint = endpoint_of(address, 0);
  if (endpoint.family == AF_UNSPEC) {
    error = "not an IP address: " + address;
    return -1;
  }
  const int sock = ::socket(endpoint.family, type | SOCK_CLOEXEC, 0);
  if (sock < 0 || ::bind(sock, reinterpret_cast<sockaddr*>(&endpoint.address), endpoint.length)) {
    error = "bind " + address + ": " + std::strerror(errno);
    if (sock >= 0) ::close(sock);
    return -1;
  }
  return sock;
}

// The sender: a child process in `netns` pinned to `cpu` that runs `send`
// (which must not allocate: the parent may have threads) and writes its
// result to a pipe. Returns the pid, or -1.
// What the sender process reports through its pipe.
struct SenderReport {
  long long sent = -1;        // bytes or datagrams; -1: failed
  long long segments = -1;    // TCP: segments sent, retransmissions included
  long long wire_bytes = -1;  // TCP: payload bytes sent, retransmissions included
};

pid_t start_sender(const std::string& netns, unsigned cpu, int result_fd,
                   const std::function<SenderReport()>& send) {
  const std::string ns_path = "/run/netns/" + netns;
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  SenderReport result;
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(cpu, &cpus);
  const int ns_fd = ::open(ns_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (::sched_setaffinity(0, sizeof cpus, &cpus) == 0 && ns_fd >= 0 &&
      ::setns(ns_fd, CLONE_NEWNET) == 0) {
    result = send();
  }
  (void)!::write(result_fd, &result, sizeof result);
  ::_exit(0);
}

// Waits for the sender's result (at most until `deadline`, then ends it).
SenderReport finish_sender(pid_t pid, int result_fd, Clock::time_point deadline) {
  SenderReport result;
  pollfd ready{result_fd, POLLIN, 0};
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (::poll(&ready, 1, static_cast<int>(std::max<long long>(left, 0))) != 1 ||
      ::read(result_fd, &result, sizeof result) != sizeof result) {
    ::kill(pid, SIGKILL);
    result = SenderReport{};
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return result;
}

// Sends `bytes`, then waits for the receiver to close (so that nothing is
// in flight any more) and reports what TCP itself counted.
SenderReport send_stream(const Endpoint& to, std::uint64_t bytes, const std::vector<char>& chunk) {
  SenderReport report;
  const int sock = ::socket(to.family, SOCK_STREAM, 0);
  const timeval limit{10, 0};
  ::setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
  ::setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  if (sock < 0 || ::connect(sock, reinterpret_cast<const sockaddr*>(&to.address), to.length)) {
    return report;
  }
  std::uint64_t sent = 0;
  while (sent < bytes) {
    const std::size_t size = std::min<std::uint64_t>(chunk.size(), bytes - sent);
    const ssize_t n = ::send(sock, chunk.data(), size, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::uint64_t>(n);
  }
  ::shutdown(sock, SHUT_WR);
  char end;
  while (::recv(sock, &end, 1, 0) > 0) {
  }
  // The acknowledgement of the receiver's FIN may wait for the delayed-ACK
  // timer (at most 200 ms): let it go out before reading the count.
  ::usleep(250 * 1000);
  tcp_info info{};
  socklen_t length = sizeof info;
  if (::getsockopt(sock, IPPROTO_TCP, TCP_INFO, &info, &length) == 0) {
    report.segments = static_cast<long long>(info.tcpi_segs_out);
    report.wire_bytes = static_cast<long long>(info.tcpi_bytes_sent);
  }
  ::close(sock);
  report.sent = static_cast<long long>(sent);
  return report;
}

// Reads from `sock` until end of stream or `deadline`; bytes read.
std::uint64_t drain_stream(int sock, Clock::time_point deadline) {
  std::vector<char> buffer(1 << 20);
  std::uint64_t received = 0;
  while (Clock::now() < deadline) {
    pollfd readable{sock, POLLIN, 0};
    if (::poll(&readable, 1, 1000) <= 0) continue;
    const ssize_t n = ::recv(sock, buffer.data(), buffer.size(), 0);
    if (n <= 0) break;
    received += static_cast<std::uint64_t>(n);
  }
  return received;
}

}  // namespace

TransferResult send_tcp_bulk(const std::string& netns, unsigned cpu, const std::string& address,
                             std::uint64_t bytes) {
  TransferResult result;
  const auto deadline = Clock::now() + kTimeLimit;
  Fd listener(bound_socket(address, SOCK_STREAM, result.error));
  if (listener.get() < 0) return result;
  if (::listen(listener.get(), 1) != 0) {
    result.error = std::string("listen: ") + std::strerror(errno);
    return result;
  }
  const Endpoint to = endpoint_of(address, port_of(listener.get()));
  const std::vector<char> chunk(1 << 16, 'x');
  int result_pipe[2];
  if (::pipe2(result_pipe, O_CLOEXEC) != 0) return result;
  Fd result_read(result_pipe[0]);
  Fd result_write(result_pipe[1]);
  const pid_t pid =
      start_sender(netns, cpu, result_write.get(), [&] { return send_stream(to, bytes, chunk); });
  result_write.reset();
  pollfd incoming{listener.get(), POLLIN, 0};
  if (pid > 0 && ::poll(&incoming, 1, 10000) == 1) {
    Fd connection(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (connection.get() >= 0) result.received = drain_stream(connection.get(), deadline);
  }
  const SenderReport report =
      pid > 0 ? finish_sender(pid, result_read.get(), deadline) : SenderReport{};
  const long long sent = report.sent;
  result.sent = sent > 0 ? static_cast<std::uint64_t>(sent) : 0;
  result.segments = report.segments;
  result.wire_bytes = report.wire_bytes;
  result.ok = sent == static_cast<long long>(bytes) && result.received == bytes;
  if (!result.ok) {
    std::ostringstream why;
    why << "TCP to " << address << ": sent " << sent << " of " << bytes << " bytes, received "
        << result.received;
    result.error = why.str();
  }
  return result;
}

TransferResult send_udp_to_gro_socket(const std::string& netns, unsigned cpu,
                                      const std::string& address, int count, int payload_bytes) {
  TransferResult result;
  const auto deadline = Clock::now() + kTimeLimit;
  Fd receiver(bound_socket(address, SOCK_DGRAM, result.error));
  if (receiver.get() < 0) return result;
  const int on = 1;
  const int buffer = 8 << 20;
  if (::setsockopt(receiver.get(), SOL_UDP, UDP_GRO, &on, sizeof on) != 0) {
    result.error = std::string("UDP_GRO: ") + std::strerror(errno);
    return result;
  }
  ::setsockopt(receiver.get(), SOL_SOCKET, SO_RCVBUF, &buffer, sizeof buffer);
  const Endpoint to = endpoint_of(address, port_of(receiver.get()));
  constexpr int kSegmentsPerSend = 32;
  const std::vector<char> payload(static_cast<std::size_t>(payload_bytes) * kSegmentsPerSend, 'u');
  int result_pipe[2];
  if (::pipe2(result_pipe, O_CLOEXEC) != 0) return result;
  Fd result_read(result_pipe[0]);
  Fd result_write(result_pipe[1]);
  const pid_t pid = start_sender(netns, cpu, result_write.get(), [&]() -> SenderReport {
    const int sock = ::socket(to.family, SOCK_DGRAM, 0);
    const int segment = payload_bytes;
    if (sock < 0 || ::setsockopt(sock, SOL_UDP, UDP_SEGMENT, &segment, sizeof segment) != 0 ||
        ::connect(sock, reinterpret_cast<const sockaddr*>(&to.address), to.length) != 0) {
      return {};
    }
    long long sent = 0;
    while (sent < count) {
      const long long segments = std::min<long long>(kSegmentsPerSend, count - sent);
      const auto size = static_cast<std::size_t>(segments * payload_bytes);
      if (::send(sock, payload.data(), size, 0) != static_cast<ssize_t>(size)) break;
      sent += segments;
    }
    ::close(sock);
    return {sent, -1, -1};
  });
  result_write.reset();
  // Drains while the sender runs, and a moment after: UDP_GRO hands over
  // merged datagrams, their segment size in a control message (not needed:
  // the test counts at the device).
  std::vector<char> buffer_in(1 << 16);
  long long sent = -1;
  bool sender_done = pid <= 0;
  auto quiet_until = Clock::time_point::max();
  while (Clock::now() < deadline && Clock::now() < quiet_until) {
    pollfd fds[2] = {{receiver.get(), POLLIN, 0}, {result_read.get(), POLLIN, 0}};
    ::poll(fds, sender_done ? 1 : 2, 200);
    if (fds[0].revents & POLLIN) {
      const ssize_t n = ::recv(receiver.get(), buffer_in.data(), buffer_in.size(), 0);
      if (n > 0) result.received += static_cast<std::uint64_t>(n) / payload_bytes;
    }
    if (!sender_done && (fds[1].revents & (POLLIN | POLLHUP))) {
      sent = finish_sender(pid, result_read.get(), deadline).sent;
      sender_done = true;
      quiet_until = Clock::now() + std::chrono::milliseconds(500);
    }
  }
  if (!sender_done) sent = finish_sender(pid, result_read.get(), Clock::now()).sent;
  result.sent = sent > 0 ? static_cast<std::uint64_t>(sent) : 0;
  result.ok = sent == count;
  if (!result.ok) result.error = "UDP to " + address + ": sent " + std::to_string(sent);
  return result;
}

}  // namespace netif_rx::test
