// Network namespaces and veth pairs that a test creates for itself, removed
// again when the object goes (also when the test fails).
#pragma once

#include <string>
#include <vector>

namespace netif_rx::test {

struct VethEnd {
  std::string name;
  std::string netns;  // empty: the host (the test's own) namespace
  std::string address;
  std::string mac;
  std::string address6;  // set by TestNetwork::add_ipv6
};

struct VethPair {
  VethEnd a;
  VethEnd b;
};

class TestNetwork {
 public:
  // Every name starts with `prefix` (at most 9 characters), which should be
  // unique to the test process.
  explicit TestNetwork(std::string prefix);
  ~TestNetwork();
  TestNetwork(const TestNetwork&) = delete;
  TestNetwork& operator=(const TestNetwork&) = delete;

  // Creates the namespace `prefix + suffix` with its loopback up.
  std::string add_namespace(const std::string& suffix);

  // Creates a veth pair between two namespaces ("" = host), with IPv6 off
  // (no router solicitations or MLD), addresses 192.0.2.(4*subnet+1|+2)/30
  // (TEST-NET-1, never routed) and static neighbours, so that nothing but the
  // test's own packets crosses it (no ARP).
  // With `index_a` > 0, end a gets that ifindex (`ip link add ... index N`).
  VethPair add_veth_pair(const std::string& suffix_a, const std::string& netns_a,
                         const std::string& suffix_b, const std::string& netns_b, int subnet,
                         int index_a = 0);

  // Turns IPv6 on for the pair, quietly: addresses 2001:db8:0:SUBNET::1|2/64
  // (documentation prefix) without duplicate address detection, no
  // link-local address, no router solicitations, static neighbours. The
  // multicast reports of joining the address's group still go out at once:
  // let a second pass before counting.
  void add_ipv6(VethPair& pair, int subnet);

  // `ethtool -K link FEATURE on|off ...` in the link's namespace, e.g.
  // {"gro", "on", "tso", "off"}.
  void set_features(const std::string& netns, const std::string& link,
                    const std::vector<std::string>& features);

  // Creates the link `prefix + suffix` in `netns` ("" = host) with `ip link
  // add NAME TYPE_ARGS...` (e.g. {"type", "vxlan", "id", "42", ...}), IPv6
  // off before it comes up (no router solicitations or MLD reports); down.
  // Removed with the rest. Returns its name.
  std::string add_link(const std::string& netns, const std::string& suffix,
                       const std::vector<std::string>& type_args);

  // Runs argv (an `ip` or `sysctl` command) in `netns` ("" = host), failing
  // the test when it fails.
  void run_in(const std::string& netns, const std::vector<std::string>& argv);

  // Renames or deletes a link the test made.
  void rename_link(const std::string& netns, const std::string& from, const std::string& to);
  void delete_link(const std::string& netns, const std::string& name);

  // ifindex of a link, read in its namespace.
  int ifindex(const std::string& netns, const std::string& name) const;

  const std::string& prefix() const { return prefix_; }

 private:
  std::string prefix_;
  std::vector<std::string> namespaces_;
  std::vector<std::string> host_links_;
};

// A link's counter from /sys/class/net/LINK/statistics (e.g. "rx_packets"),
// read in its namespace; -1 when it cannot be read.
long long link_counter(const std::string& netns, const std::string& link, const std::string& name);

// Sends `count` UDP datagrams of `payload_bytes` each from `netns` to
// `destination`:9 (unicast, broadcast or multicast: the socket may
// broadcast, and joins a multicast destination's group on the device its
// route leaves by, so that the kernel loops each datagram back to the sending
// host), from a thread pinned to `cpu`. Returns how many were sent, -1 when it could not send.
int send_udp(const std::string& netns, unsigned cpu, const std::string& destination, int count,
             int payload_bytes);

// Sends `count` UDP GSO datagrams of `segments` segments of `payload_bytes`
// each from `netns` to `destination`:9, from a thread pinned to `cpu`. With
// the sending device's tx-udp-segmentation off, the device segments each
// and hands every segment to the peer within one transmit (with bottom
// halves off): a burst that the peer's NAPI context or the CPU's backlog
// takes in one poll. Returns the datagrams sent.
int send_udp_gso_bursts(const std::string& netns, unsigned cpu, const std::string& destination,
                        int count, int segments, int payload_bytes);

// Bytes the probe counts for each such datagram: skb->len at
// netif_receive_skb is the IPv4 header (20) + UDP header (8) + payload.
inline int udp_skb_len(int payload_bytes) { return 20 + 8 + payload_bytes; }

}  // namespace netif_rx::test
