#include "bench_network.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <thread>
#include <vector>

namespace netif_rx::bench {
namespace {

constexpr const char* kSenderAddress = "198.51.100.1";
constexpr const char* kReceiverAddress = "198.51.100.2";
constexpr int kPort = 9;
constexpr int kClosedPort = 10;  // nobody listens there: the drop storm's port
constexpr int kTcpPort = 5001;
constexpr int kPayload = 16;
constexpr int kBatch = 64;
constexpr int kCpu = 1;

// Names of the namespaces to delete if a signal ends the benchmark: a
// BenchNetwork's two, then a SpreadNetwork's.
constexpr int kMaxSpreadNamespaces = 10;
char g_cleanup[2 + 1 + kMaxSpreadNamespaces][64];

void run(const std::string& command) {
  if (std::system(command.c_str()) != 0) throw std::runtime_error("command failed: " + command);
}

void delete_namespaces(std::size_t first = 0, std::size_t count = std::size(g_cleanup)) {
  for (std::size_t i = first; i < first + count && i < std::size(g_cleanup); ++i) {
    auto& name = g_cleanup[i];
    if (name[0] == '\0') continue;
    const std::string command = std::string("ip netns del ") + name + " 2>/dev/null";
    (void)!std::system(command.c_str());
    name[0] = '\0';
  }
}

void on_signal(int signal_number) {
  delete_namespaces();
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

// A socket created inside namespace `name` (it stays there).
UniqueFd socket_in(const std::string& name, int type) {
  UniqueFd self(::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC));
  UniqueFd target(::open(("/run/netns/" + name).c_str(), O_RDONLY | O_CLOEXEC));
  if (!self.valid() || !target.valid() || ::setns(target.get(), CLONE_NEWNET) != 0)
    throw std::runtime_error("entering namespace " + name + ": " + std::strerror(errno));
  UniqueFd fd(::socket(AF_INET, type | SOCK_CLOEXEC, 0));
  const int err = errno;
  if (::setns(self.get(), CLONE_NEWNET) != 0) std::abort();
  if (!fd.valid()) throw std::runtime_error("socket: " + std::string(std::strerror(err)));
  return fd;
}

sockaddr_in address(const char* ip, int port) {
  sockaddr_in out{};
  out.sin_family = AF_INET;
  out.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, ip, &out.sin_addr);
  return out;
}

double now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

}  // namespace

void install_cleanup_on_signals() {
  // SIGPIPE too: the table piped into a reader that went away (`| head`).
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(s, on_signal);
}

BenchNetwork::BenchNetwork() {
  const std::string prefix = "nrb" + std::to_string(::getpid());
  sender_ns_ = prefix + "s";
  receiver_ns_ = prefix + "r";
  sender_link_ = prefix + "x";
  receiver_link_ = prefix + "y";
  std::snprintf(g_cleanup[0], sizeof g_cleanup[0], "%s", sender_ns_.c_str());
  std::snprintf(g_cleanup[1], sizeof g_cleanup[1], "%s", receiver_ns_.c_str());
  try {
    for (const auto& ns : {sender_ns_, receiver_ns_}) {
      run("ip netns add " + ns);
      run("ip netns exec " + ns + " sysctl -qw net.ipv6.conf.all.disable_ipv6=1");
      run("ip netns exec " + ns + " sysctl -qw net.ipv6.conf.default.disable_ipv6=1");
      run("ip -n " + ns + " link set lo up");
    }
    run("ip link add " + prefix + "x address 02:00:00:00:00:01 netns " + sender_ns_ +
        " type veth peer name " + prefix + "y address 02:00:00:00:00:02 netns " + receiver_ns_);
    run("ip -n " + sender_ns_ + " addr add " + kSenderAddress + "/30 dev " + prefix + "x");
    run("ip -n " + receiver_ns_ + " addr add " + kReceiverAddress + "/30 dev " + prefix + "y");
    run("ip -n " + sender_ns_ + " link set " + prefix + "x up");
    run("ip -n " + receiver_ns_ + " link set " + prefix + "y up");
    // Static neighbours: no ARP, nothing crosses but our datagrams.
    run("ip -n " + sender_ns_ + " neigh replace " + kReceiverAddress +
        " lladdr 02:00:00:00:00:02 nud permanent dev " + prefix + "x");
    run("ip -n " + receiver_ns_ + " neigh replace " + kSenderAddress +
        " lladdr 02:00:00:00:00:01 nud permanent dev " + prefix + "y");

    struct stat st {};
    if (::stat(("/run/netns/" + receiver_ns_).c_str(), &st) != 0)
      throw std::runtime_error("stat of the receiver namespace failed");
    receiver_inum_ = static_cast<std::uint32_t>(st.st_ino);

    receiver_ = socket_in(receiver_ns_, SOCK_DGRAM);
    const int big = 64 << 20;
    ::setsockopt(receiver_.get(), SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big);
    const auto bind_to = address(kReceiverAddress, kPort);
    if (::bind(receiver_.get(), reinterpret_cast<const sockaddr*>(&bind_to), sizeof bind_to) != 0)
      throw std::runtime_error("bind: " + std::string(std::strerror(errno)));
    sender_ = socket_in(sender_ns_, SOCK_DGRAM);
    const auto to = address(kReceiverAddress, kPort);
    if (::connect(sender_.get(), reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0)
      throw std::runtime_error("connect: " + std::string(std::strerror(errno)));
  } catch (...) {
    delete_namespaces(0, 2);
    throw;
  }

  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(kCpu, &cpus);
  ::sched_setaffinity(0, sizeof cpus, &cpus);
}

BenchNetwork::~BenchNetwork() {
  sender_.reset();
  receiver_.reset();
  delete_namespaces(0, 2);
}

double BenchNetwork::burst(int packets) {
  char payload[kPayload] = {};
  iovec iov{payload, sizeof payload};
  std::vector<mmsghdr> messages(kBatch);
  for (auto& m : messages) {
    m = {};
    m.msg_hdr.msg_iov = &iov;
    m.msg_hdr.msg_iovlen = 1;
  }
  const double start = now_ns();
  int sent = 0;
  while (sent < packets) {
    const int n = std::min(kBatch, packets - sent);
    const int rc = ::sendmmsg(sender_.get(), messages.data(), static_cast<unsigned>(n), 0);
    if (rc <= 0) throw std::runtime_error("sendmmsg: " + std::string(std::strerror(errno)));
    sent += rc;
  }
  const double elapsed = now_ns() - start;
  drain();
  return elapsed / packets;
}

double BenchNetwork::flood_closed_port(int packets, int per_second) {
  // Its own socket, unconnected: the receiver's ICMP port unreachable
  // replies (rate-limited by the kernel) find no socket to report to.
  UniqueFd sender = socket_in(sender_ns_, SOCK_DGRAM);
  sockaddr_in to = address(kReceiverAddress, kClosedPort);
  char payload[kPayload] = {};
  iovec iov{payload, sizeof payload};
  std::vector<mmsghdr> messages(kBatch);
  for (auto& m : messages) {
    m = {};
    m.msg_hdr.msg_iov = &iov;
    m.msg_hdr.msg_iovlen = 1;
    m.msg_hdr.msg_name = &to;
    m.msg_hdr.msg_namelen = sizeof to;
  }
  const auto period_ns = static_cast<long>(1e9 * kBatch / std::max(per_second, 1));
  timespec next{};
  ::clock_gettime(CLOCK_MONOTONIC, &next);
  double sending = 0;
  int sent = 0;
  while (sent < packets) {
    ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
    next.tv_nsec += period_ns;
    while (next.tv_nsec >= 1000000000L) {
      next.tv_nsec -= 1000000000L;
      ++next.tv_sec;
    }
    const int n = std::min(kBatch, packets - sent);
    const double start = now_ns();
    const int rc = ::sendmmsg(sender.get(), messages.data(), static_cast<unsigned>(n), 0);
    sending += now_ns() - start;
    if (rc <= 0) throw std::runtime_error("sendmmsg: " + std::string(std::strerror(errno)));
    sent += rc;
  }
  return sending / packets;
}

void BenchNetwork::merge_received_tcp() {
  run("ip netns exec " + receiver_ns_ + " ethtool -K " + receiver_link_ + " gro on >/dev/null");
  run("ip netns exec " + sender_ns_ + " ethtool -K " + sender_link_ +
      " tso off gso off >/dev/null");
}

void BenchNetwork::bulk_tcp(std::uint64_t bytes) {
  UniqueFd listener = socket_in(receiver_ns_, SOCK_STREAM);
  const int on = 1;
  ::setsockopt(listener.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  const auto at = address(kReceiverAddress, kTcpPort);
  if (::bind(listener.get(), reinterpret_cast<const sockaddr*>(&at), sizeof at) != 0 ||
      ::listen(listener.get(), 1) != 0)
    throw std::runtime_error("TCP listen: " + std::string(std::strerror(errno)));
  UniqueFd sender = socket_in(sender_ns_, SOCK_STREAM);
  const timeval limit{10, 0};
  ::setsockopt(sender.get(), SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
  if (::connect(sender.get(), reinterpret_cast<const sockaddr*>(&at), sizeof at) != 0)
    throw std::runtime_error("TCP connect: " + std::string(std::strerror(errno)));
  UniqueFd connection(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!connection.valid()) throw std::runtime_error("TCP accept failed");
  ::setsockopt(connection.get(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  std::uint64_t received = 0;
  std::thread receiver([&] {
    std::vector<char> buffer(1 << 20);
    while (received < bytes) {
      const ssize_t n = ::recv(connection.get(), buffer.data(), buffer.size(), 0);
      if (n <= 0) break;
      received += static_cast<std::uint64_t>(n);
    }
  });
  const std::vector<char> chunk(1 << 16, 'x');
  std::uint64_t sent = 0;
  while (sent < bytes) {
    const ssize_t n = ::send(sender.get(), chunk.data(),
                             std::min<std::uint64_t>(chunk.size(), bytes - sent), MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::uint64_t>(n);
  }
  sender.reset();
  receiver.join();
  if (sent != bytes || received != bytes) throw std::runtime_error("the TCP transfer failed");
}

std::uint64_t BenchNetwork::frames_received() const {
  std::uint64_t total = 0;
  for (const auto& [ns, link] :
       {std::pair{sender_ns_, sender_link_}, {receiver_ns_, receiver_link_}}) {
    const std::string command =
        "ip netns exec " + ns + " cat /sys/class/net/" + link + "/statistics/rx_packets";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) throw std::runtime_error("reading rx_packets failed");
    unsigned long long frames = 0;
    const int matched = std::fscanf(pipe, "%llu", &frames);
    ::pclose(pipe);
    if (matched != 1) throw std::runtime_error("reading rx_packets failed");
    total += frames;
  }
  return total;
}

void BenchNetwork::drain() {
  char buffer[kPayload * 4];
  std::vector<mmsghdr> messages(256);
  std::vector<iovec> iovs(256, iovec{buffer, sizeof buffer});
  for (std::size_t i = 0; i < messages.size(); ++i) {
    messages[i] = {};
    messages[i].msg_hdr.msg_iov = &iovs[i];
    messages[i].msg_hdr.msg_iovlen = 1;
  }
  while (::recvmmsg(receiver_.get(), messages.data(), static_cast<unsigned>(messages.size()),
                    MSG_DONTWAIT, nullptr) > 0) {
  }
}

SpreadNetwork::SpreadNetwork(int namespaces, int devices) {
  if (namespaces < 1 || namespaces > kMaxSpreadNamespaces || devices < 1 ||
      namespaces * devices > 120)
    throw std::runtime_error("SpreadNetwork: at most 10 namespaces and 120 devices");
  const std::string prefix = "nrm" + std::to_string(::getpid());
  namespaces_.push_back(prefix + "s");
  for (int n = 0; n < namespaces; ++n) namespaces_.push_back(prefix + "r" + std::to_string(n));
  for (std::size_t i = 0; i < namespaces_.size(); ++i)
    std::snprintf(g_cleanup[2 + i], sizeof g_cleanup[2 + i], "%s", namespaces_[i].c_str());
  try {
    for (const auto& ns : namespaces_) {
      run("ip netns add " + ns);
      run("ip netns exec " + ns + " sysctl -qw net.ipv6.conf.all.disable_ipv6=1");
      run("ip netns exec " + ns + " sysctl -qw net.ipv6.conf.default.disable_ipv6=1");
      run("ip -n " + ns + " link set lo up");
    }
    const std::string& sender = namespaces_.front();
    for (int n = 0; n < namespaces; ++n) {
      const std::string& receiver = namespaces_[static_cast<std::size_t>(n) + 1];
      for (int d = 0; d < devices; ++d) {
        const int pair = n * devices + d;
        const std::string name = prefix + "v" + std::to_string(pair);
        const std::string near = "198.51.100." + std::to_string(2 * pair);
        const std::string far = "198.51.100." + std::to_string(2 * pair + 1);
        char near_mac[32];
        char far_mac[32];
        std::snprintf(near_mac, sizeof near_mac, "02:00:00:01:%02x:01", pair);
        std::snprintf(far_mac, sizeof far_mac, "02:00:00:01:%02x:02", pair);
        run("ip link add " + name + "a address " + near_mac + " netns " + sender +
            " type veth peer name " + name + "b address " + far_mac + " netns " + receiver);
        run("ip -n " + sender + " addr add " + near + "/31 dev " + name + "a");
        run("ip -n " + receiver + " addr add " + far + "/31 dev " + name + "b");
        run("ip -n " + sender + " link set " + name + "a up");
        run("ip -n " + receiver + " link set " + name + "b up");
        run("ip -n " + sender + " neigh replace " + far + " lladdr " + far_mac +
            " nud permanent dev " + name + "a");
        run("ip -n " + receiver + " neigh replace " + near + " lladdr " + near_mac +
            " nud permanent dev " + name + "b");
        destinations_.push_back(far);
      }
      struct stat st {};
      if (::stat(("/run/netns/" + receiver).c_str(), &st) != 0)
        throw std::runtime_error("stat of namespace " + receiver + " failed");
      inums_.push_back(static_cast<std::uint32_t>(st.st_ino));
      UniqueFd socket = socket_in(receiver, SOCK_DGRAM);
      const int big = 64 << 20;
      ::setsockopt(socket.get(), SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big);
      const auto any = address("0.0.0.0", kPort);
      if (::bind(socket.get(), reinterpret_cast<const sockaddr*>(&any), sizeof any) != 0)
        throw std::runtime_error("bind: " + std::string(std::strerror(errno)));
      receivers_.push_back(std::move(socket));
    }
    sender_ = socket_in(sender, SOCK_DGRAM);
  } catch (...) {
    delete_namespaces(2, namespaces_.size());
    throw;
  }
}

SpreadNetwork::~SpreadNetwork() {
  sender_.reset();
  receivers_.clear();
  delete_namespaces(2, namespaces_.size());
}

void SpreadNetwork::burst(int packets) {
  char payload[kPayload] = {};
  iovec iov{payload, sizeof payload};
  std::vector<sockaddr_in> to;
  to.reserve(destinations_.size());
  for (const auto& destination : destinations_) to.push_back(address(destination.c_str(), kPort));
  std::vector<mmsghdr> messages(kBatch);
  int sent = 0;
  while (sent < packets) {
    const int n = std::min(kBatch, packets - sent);
    for (int i = 0; i < n; ++i) {
      messages[static_cast<std::size_t>(i)] = {};
      auto& header = messages[static_cast<std::size_t>(i)].msg_hdr;
      header.msg_iov = &iov;
      header.msg_iovlen = 1;
      header.msg_name = &to[static_cast<std::size_t>(sent + i) % to.size()];
      header.msg_namelen = sizeof(sockaddr_in);
    }
    const int rc = ::sendmmsg(sender_.get(), messages.data(), static_cast<unsigned>(n), 0);
    if (rc <= 0) throw std::runtime_error("sendmmsg: " + std::string(std::strerror(errno)));
    sent += rc;
  }
  char buffer[kPayload * 4];
  for (const auto& receiver : receivers_) {
    while (::recv(receiver.get(), buffer, sizeof buffer, MSG_DONTWAIT) > 0) {
    }
  }
}

}  // namespace netif_rx::bench
