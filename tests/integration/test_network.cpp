#include "test_network.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "command.h"
#include "netns_thread.h"
#include "util/unique_fd.h"

namespace netif_rx::test {
namespace {

// ARGV run in NETNS: `ip -n NETNS ...` for ip itself (ip enters the namespace on its own, where
// `ip netns exec` would start a second process in a new mount namespace), `ip netns exec` for the
// rest.
std::vector<std::string> in_netns(const std::string& netns, std::vector<std::string> argv) {
  if (netns.empty()) return argv;
  std::vector<std::string> out{"ip", "netns", "exec", netns};
  if (!argv.empty() && argv.front() == "ip") {
    out = {"ip", "-n", netns};
    argv.erase(argv.begin());
  }
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

void sysctl_or_fail(const std::string& netns, const std::string& key, const std::string& value) {
  if (!set_netns_sysctl(netns, key, value)) {
    ADD_FAILURE() << "cannot set " << key << "=" << value << " in namespace '" << netns << "'";
  }
}

}  // namespace

TestNetwork::TestNetwork(std::string prefix) : prefix_(std::move(prefix)) {}

TestNetwork::~TestNetwork() {
  for (const auto& link : host_links_) run_command({"ip", "link", "del", link});
  for (const auto& netns : namespaces_) run_command({"ip", "netns", "del", netns});
}

std::string TestNetwork::add_namespace(const std::string& suffix) {
  const std::string name = prefix_ + suffix;
  run_command({"ip", "netns", "del", name});  // a leftover of a crashed run
  if (run_or_fail({"ip", "netns", "add", name})) namespaces_.push_back(name);
  run_or_fail({"ip", "-n", name, "link", "set", "lo", "up"});
  return name;
}

VethPair TestNetwork::add_veth_pair(const std::string& suffix_a, const std::string& netns_a,
                                    const std::string& suffix_b, const std::string& netns_b,
                                    int subnet, int index_a) {
  VethPair pair;
  pair.a = {prefix_ + suffix_a, netns_a, "192.0.2." + std::to_string(4 * subnet + 1), "", ""};
  pair.b = {prefix_ + suffix_b, netns_b, "192.0.2." + std::to_string(4 * subnet + 2), "", ""};

  std::vector<std::string> create{"ip", "link", "add", pair.a.name};
  if (!netns_a.empty()) create.insert(create.end(), {"netns", netns_a});
  if (index_a > 0) create.insert(create.end(), {"index", std::to_string(index_a)});
  create.insert(create.end(), {"type", "veth", "peer", "name", pair.b.name});
  if (!netns_b.empty()) create.insert(create.end(), {"netns", netns_b});
  if (!run_or_fail(create)) return pair;
  if (netns_a.empty()) host_links_.push_back(pair.a.name);
  if (netns_b.empty()) host_links_.push_back(pair.b.name);

  for (VethEnd* end : {&pair.a, &pair.b}) {
    sysctl_or_fail(end->netns, "net.ipv6.conf." + end->name + ".disable_ipv6", "1");
    end->mac = link_mac(end->netns, end->name);
  }
  for (auto [self, peer] : {std::pair{&pair.a, &pair.b}, std::pair{&pair.b, &pair.a}}) {
    run_or_fail(
        in_netns(self->netns, {"ip", "addr", "add", self->address + "/30", "dev", self->name}));
    run_or_fail(in_netns(self->netns, {"ip", "neigh", "replace", peer->address, "lladdr", peer->mac,
                                       "nud", "permanent", "dev", self->name}));
    run_or_fail(in_netns(self->netns, {"ip", "link", "set", self->name, "up"}));
  }
  return pair;
}

void TestNetwork::add_ipv6(VethPair& pair, int subnet) {
  const std::string prefix = "2001:db8:0:" + std::to_string(subnet) + "::";
  pair.a.address6 = prefix + "1";
  pair.b.address6 = prefix + "2";
  for (VethEnd* end : {&pair.a, &pair.b}) {
    const std::string conf = "net.ipv6.conf." + end->name + ".";
    for (const auto& [setting, value] :
         {std::pair{"addr_gen_mode", "1"}, std::pair{"accept_ra", "0"},
          std::pair{"router_solicitations", "0"}, std::pair{"accept_dad", "0"},
          std::pair{"disable_ipv6", "0"}}) {
      sysctl_or_fail(end->netns, conf + setting, value);
    }
  }
  for (auto [self, peer] : {std::pair{&pair.a, &pair.b}, std::pair{&pair.b, &pair.a}}) {
    run_or_fail(in_netns(
        self->netns, {"ip", "addr", "add", self->address6 + "/64", "dev", self->name, "nodad"}));
    run_or_fail(in_netns(self->netns, {"ip", "neigh", "replace", peer->address6, "lladdr",
                                       peer->mac, "nud", "permanent", "dev", self->name}));
  }
}

void TestNetwork::set_features(const std::string& netns, const std::string& link,
                               const std::vector<std::string>& features) {
  std::vector<std::string> argv{"ethtool", "-K", link};
  argv.insert(argv.end(), features.begin(), features.end());
  run_or_fail(in_netns(netns, argv));
}

long long link_counter(const std::string& netns, const std::string& link, const std::string& name) {
  const auto result =
      run_command(in_netns(netns, {"cat", "/sys/class/net/" + link + "/statistics/" + name}));
  return result.exit_code == 0 ? std::stoll(result.output) : -1;
}

std::string TestNetwork::add_link(const std::string& netns, const std::string& suffix,
                                  const std::vector<std::string>& type_args) {
  const std::string name = prefix_ + suffix;
  std::vector<std::string> create{"ip", "link", "add", name};
  create.insert(create.end(), type_args.begin(), type_args.end());
  if (!run_or_fail(in_netns(netns, create))) return name;
  if (netns.empty()) host_links_.push_back(name);
  sysctl_or_fail(netns, "net.ipv6.conf." + name + ".disable_ipv6", "1");
  return name;
}

void TestNetwork::run_in(const std::string& netns, const std::vector<std::string>& argv) {
  run_or_fail(in_netns(netns, argv));
}

void TestNetwork::rename_link(const std::string& netns, const std::string& from,
                              const std::string& to) {
  run_or_fail(in_netns(netns, {"ip", "link", "set", from, "down"}));
  run_or_fail(in_netns(netns, {"ip", "link", "set", from, "name", to}));
  run_or_fail(in_netns(netns, {"ip", "link", "set", to, "up"}));
  if (netns.empty()) {
    for (auto& link : host_links_) {
      if (link == from) link = to;
    }
  }
}

void TestNetwork::delete_link(const std::string& netns, const std::string& name) {
  run_or_fail(in_netns(netns, {"ip", "link", "del", name}));
  std::erase(host_links_, name);
}

int TestNetwork::ifindex(const std::string& netns, const std::string& name) const {
  const auto result = run_command(in_netns(netns, {"cat", "/sys/class/net/" + name + "/ifindex"}));
  return result.exit_code == 0 ? std::stoi(result.output) : -1;
}

int send_udp(const std::string& netns, unsigned cpu, const std::string& destination, int count,
             int payload_bytes) {
  const std::vector<char> payload(static_cast<std::size_t>(payload_bytes), 'x');
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(9);  // discard
  ::inet_pton(AF_INET, destination.c_str(), &to.sin_addr);
  int sent = -1;
  run_in_netns(netns, cpu, [&] {
    const UniqueFd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!sock.valid()) return;
    const int on = 1;
    ::setsockopt(sock.get(), SOL_SOCKET, SO_BROADCAST, &on, sizeof on);
    if (IN_MULTICAST(ntohl(to.sin_addr.s_addr))) {
      ip_mreq membership{};
      membership.imr_multiaddr = to.sin_addr;
      ::setsockopt(sock.get(), IPPROTO_IP, IP_ADD_MEMBERSHIP, &membership, sizeof membership);
    }
    sent = 0;
    for (int i = 0; i < count; ++i) {
      if (::sendto(sock.get(), payload.data(), payload.size(), 0,
                   reinterpret_cast<const sockaddr*>(&to),
                   sizeof to) == static_cast<ssize_t>(payload.size())) {
        ++sent;
      }
    }
  });
  return sent;
}

int send_udp_gso_bursts(const std::string& netns, unsigned cpu, const std::string& destination,
                        int count, int segments, int payload_bytes) {
  const std::vector<char> payload(static_cast<std::size_t>(segments) * payload_bytes, 'x');
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(9);
  ::inet_pton(AF_INET, destination.c_str(), &to.sin_addr);
  int sent = -1;
  run_in_netns(netns, cpu, [&] {
    const UniqueFd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    const int size = payload_bytes;
    if (!sock.valid() || ::setsockopt(sock.get(), SOL_UDP, UDP_SEGMENT, &size, sizeof size) != 0)
      return;
    sent = 0;
    for (int i = 0; i < count; ++i) {
      if (::sendto(sock.get(), payload.data(), payload.size(), 0,
                   reinterpret_cast<const sockaddr*>(&to),
                   sizeof to) == static_cast<ssize_t>(payload.size()))
        ++sent;
    }
  });
  return sent;
}

}  // namespace netif_rx::test
