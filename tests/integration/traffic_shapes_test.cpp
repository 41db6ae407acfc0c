// Traffic shapes that real nodes carry beside plain TCP and UDP, against the
// real kernel and through the exporter's HTTP endpoint: tunnel aggregates on
// their underlay (VXLAN, Geneve, GRE), VLAN tags left in the payload, IPsec
// tunnel mode, multicast that the sender loops back to itself, and the
// copies of multicast frames that macvlan devices get. Each is checked
// against counters no one here wrote: the sending device's frames, TCP's
// segments, the receiving device's own rx_packets.
//
// A kernel without a device type (this host's has no Geneve, GRE, VLAN or
// IPsec) skips that test saying so; the kernel matrix's 6.1 guest loads
// those drivers and runs every test of this file, skips refused there.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <thread>

#include "bulk_traffic.h"
#include "command.h"
#include "exporter_process.h"
#include "series_query.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

constexpr std::uint64_t kBulkBytes = 4ULL << 20;
constexpr unsigned kSenderCpu = 0;
// IPv4 and TCP with timestamps: the headers of every inner segment.
constexpr int kInnerTcpHeaders = 20 + 32;
// What each tunnel adds per packet on its underlay, in front of the inner
// IPv4 header: outer IPv4, and VXLAN: UDP 8 + VXLAN 8 + inner Ethernet 14;
// Geneve without options: UDP 8 + Geneve 8 + inner Ethernet 14; GRE
// (no key, no checksum): 4.
constexpr int kVxlanOverhead = 20 + 8 + 8 + 14;
constexpr int kGeneveOverhead = 20 + 8 + 8 + 14;
constexpr int kGreOverhead = 20 + 4;

struct Count {
  double packets = 0;
  double skbs = 0;
  double bytes = 0;
};

Count operator-(const Count& a, const Count& b) {
  return {a.packets - b.packets, a.skbs - b.skbs, a.bytes - b.bytes};
}

// A device type this kernel lacks: the reason, empty when it has it.
std::string missing_driver(const CommandResult& made) {
  if (made.exit_code == 0) return "";
  for (const char* sign : {"Unknown device type", "not supported", "Protocol not supported",
                           "No such file or directory", "Invalid argument"}) {
    if (made.output.find(sign) != std::string::npos) return made.output;
  }
  return "";
}

class TrafficShapesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    network_ = std::make_unique<TestNetwork>("nts" + std::to_string(::getpid() % 100000));
    sender_ns_ = network_->add_namespace("s");
    exporter_ = std::make_unique<ExporterProcess>("poll_interval: 100ms\nnamespaces: all\n");
  }

  static void TearDownTestSuite() {
    exporter_.reset();
    network_.reset();
  }

  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
    ASSERT_TRUE(exporter_->wait_ready()) << "the exporter did not become ready; its log says why:\n"
                                         << exporter_->log();
  }

  static Count exported(const std::string& device) {
    const Series series = exporter_->scrape();
    const Labels match{{"device", device}};
    return {sum_where(series, "netif_rx_packets_total", match),
            sum_where(series, "netif_rx_skbs_total", match),
            sum_where(series, "netif_rx_bytes_total", match)};
  }

  static double fallbacks() {
    return sum_where(exporter_->scrape(), "netif_rx_gso_fallbacks_total", {});
  }

  // The count of `device` once `done` holds (5 s at most), two polls later.
  static Count exported_when(const std::string& device,
                             const std::function<bool(const Count&)>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    Count count = exported(device);
    while (!done(count) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      count = exported(device);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    return exported(device);
  }

  static void expect_bytes_within_half_percent(const char* what, double bytes, double expected) {
    EXPECT_LE(std::fabs(bytes - expected), 0.005 * expected)
        << what << ": exported " << bytes << " bytes, expected " << expected << " ("
        << 100.0 * (bytes - expected) / expected << " %)";
  }

  // A tunnel between the host and the sender's namespace over a veth pair
  // whose host end merges (GRO on): `host_args` and `sender_args` make each
  // end (`ip link add NAME ...`), inner addresses 198.51.100.SUBNET*4+1|2.
  // Returns the reason to skip when the kernel lacks the tunnel's driver.
  struct Tunnel {
    VethPair underlay;
    std::string host_device;
    std::string sender_device;
    std::string inner_host_address;
  };

  static std::string make_tunnel(
      const std::string& kind, int subnet,
      const std::function<std::vector<std::string>(const VethEnd& self, const VethEnd& peer)>&
          args_of,
      Tunnel& tunnel) {
    tunnel.underlay = network_->add_veth_pair(kind + "u", "", kind + "v", sender_ns_, subnet);
    network_->set_features("", tunnel.underlay.a.name, {"gro", "on"});
    const std::string host_name = network_->prefix() + kind + "h";
    std::vector<std::string> create{"ip", "link", "add", host_name};
    for (const auto& arg : args_of(tunnel.underlay.a, tunnel.underlay.b)) create.push_back(arg);
    const CommandResult made = run_command(create);
    if (const std::string reason = missing_driver(made); !reason.empty()) return reason;
    run_command({"ip", "link", "del", host_name});
    tunnel.host_device =
        network_->add_link("", kind + "h", args_of(tunnel.underlay.a, tunnel.underlay.b));
    tunnel.sender_device =
        network_->add_link(sender_ns_, kind + "s", args_of(tunnel.underlay.b, tunnel.underlay.a));
    const std::string base = "198.51.100.";
    tunnel.inner_host_address = base + std::to_string(4 * subnet + 1);
    const std::string inner_sender = base + std::to_string(4 * subnet + 2);
    network_->run_in(
        "", {"ip", "addr", "add", tunnel.inner_host_address + "/30", "dev", tunnel.host_device});
    network_->run_in(sender_ns_,
                     {"ip", "addr", "add", inner_sender + "/30", "dev", tunnel.sender_device});
    network_->run_in("", {"ip", "link", "set", tunnel.host_device, "up"});
    network_->run_in(sender_ns_, {"ip", "link", "set", tunnel.sender_device, "up"});
    // MTU frames on the underlay, as a physical NIC receives them.
    network_->set_features(sender_ns_, tunnel.sender_device, {"tso", "off", "gso", "off"});
    network_->set_features(sender_ns_, tunnel.underlay.b.name, {"tso", "off", "gso", "off"});
    return "";
  }

  // Bulk TCP through the tunnel: on the underlay, packets equal the frames
  // the sender's veth sent and bytes its network-layer bytes; on the tunnel
  // device, packets equal TCP's segments.
  static void check_tunnel(const Tunnel& tunnel, int overhead) {
    const std::string underlay = tunnel.underlay.a.name;
    const long long frames_before = link_counter(sender_ns_, tunnel.underlay.b.name, "tx_packets");
    const long long rx_before = link_counter("", underlay, "rx_packets");
    const Count underlay_before = exported(underlay);
    const Count tunnel_before = exported(tunnel.host_device);
    const double fallbacks_before = fallbacks();

    const TransferResult transfer =
        send_tcp_bulk(sender_ns_, kSenderCpu, tunnel.inner_host_address, kBulkBytes);
    ASSERT_TRUE(transfer.ok) << transfer.error;

    const double frames = static_cast<double>(
        link_counter(sender_ns_, tunnel.underlay.b.name, "tx_packets") - frames_before);
    const double received =
        static_cast<double>(link_counter("", underlay, "rx_packets") - rx_before);
    const Count on_underlay = exported_when(underlay,
                                            [&](const Count& now) {
                                              return (now - underlay_before).packets >= received;
                                            }) -
                              underlay_before;
    const Count on_tunnel = exported(tunnel.host_device) - tunnel_before;
    const double segments = static_cast<double>(transfer.segments);
    const double inner_bytes =
        static_cast<double>(transfer.wire_bytes) + kInnerTcpHeaders * segments;
    std::printf(
        "underlay: frames sent %.0f, received %.0f; exported packets %.0f, skbs %.0f, bytes %.0f "
        "of %.0f; tunnel device: TCP segments %.0f, exported packets %.0f, bytes %.0f of %.0f\n",
        frames, received, on_underlay.packets, on_underlay.skbs, on_underlay.bytes,
        inner_bytes + overhead * segments, segments, on_tunnel.packets, on_tunnel.bytes,
        inner_bytes);

    EXPECT_EQ(received, frames) << "the veth dropped frames: the counts below prove less";
    EXPECT_EQ(on_underlay.packets, received) << "every frame the underlay received is a packet";
    EXPECT_LE(on_underlay.skbs * 2, on_underlay.packets)
        << "GRO merged no tunnel packets on the underlay: the test proves nothing";
    expect_bytes_within_half_percent("underlay", on_underlay.bytes,
                                     inner_bytes + overhead * segments);
    // Each frame on the underlay carries one inner packet: TCP's segments,
    // and the ARP exchange that resolved the inner addresses.
    EXPECT_EQ(on_tunnel.packets, received) << "every inner packet is a packet";
    EXPECT_GE(on_tunnel.packets, segments);
    expect_bytes_within_half_percent("tunnel device", on_tunnel.bytes, inner_bytes);
    EXPECT_EQ(fallbacks(), fallbacks_before) << "an aggregate fell back to an estimate";
  }

  static inline std::unique_ptr<TestNetwork> network_;
  static inline std::unique_ptr<ExporterProcess> exporter_;
  static inline std::string sender_ns_;
};

// The underlay's headers per packet (outer IP, UDP, VXLAN, inner Ethernet,
// IP, TCP) are restored for every packet GRO merged, not only outer IP and
// UDP.
TEST_F(TrafficShapesTest, VxlanAggregatesCountEveryFrameAndItsHeaders) {
  Tunnel tunnel;
  const std::string port = std::to_string(48000 + ::getpid() % 1000);
  const std::string skip = make_tunnel(
      "vx", 50,
      [&](const VethEnd& self, const VethEnd& peer) {
        return std::vector<std::string>{"type",    "vxlan",      "id",     "42",
                                        "local",   self.address, "remote", peer.address,
                                        "dstport", port,         "dev",    self.name};
      },
      tunnel);
  if (!skip.empty()) GTEST_SKIP() << "this kernel has no VXLAN driver: " << skip;
  check_tunnel(tunnel, kVxlanOverhead);
}

TEST_F(TrafficShapesTest, GeneveAggregatesCountEveryFrameAndItsHeaders) {
  Tunnel tunnel;
  const std::string skip = make_tunnel(
      "gn", 51,
      [&](const VethEnd&, const VethEnd& peer) {
        return std::vector<std::string>{"type", "geneve", "id", "43", "remote", peer.address};
      },
      tunnel);
  if (!skip.empty()) GTEST_SKIP() << "this kernel has no Geneve driver (geneve.ko): " << skip;
  check_tunnel(tunnel, kGeneveOverhead);
}

TEST_F(TrafficShapesTest, GreAggregatesCountEveryFrameAndItsHeaders) {
  Tunnel tunnel;
  const std::string skip = make_tunnel(
      "gr", 52,
      [&](const VethEnd& self, const VethEnd& peer) {
        return std::vector<std::string>{"type",   "gre",        "local", self.address,
                                        "remote", peer.address, "ttl",   "64"};
      },
      tunnel);
  if (!skip.empty()) GTEST_SKIP() << "this kernel has no GRE driver (ip_gre.ko): " << skip;
  check_tunnel(tunnel, kGreOverhead);
}

// VLAN tags left in the payload (the sending veth inserts them: txvlan
// off), one 802.1Q tag or an 802.1ad tag around it (QinQ), over a veth whose
// GRO merges the tagged frames: packets as without tags, bytes each frame's
// from the first tag on (4 bytes a tag), for MTU frames merged by GRO and
// for the sender's TSO skbs passed on whole.
void check_vlan(TestNetwork& network, ExporterProcess& exporter, const std::string& sender_ns,
                int subnet, bool qinq);

TEST_F(TrafficShapesTest, VlanTagsInThePayloadCountLikeUntaggedFramesPlusTheirTags) {
  check_vlan(*network_, *exporter_, sender_ns_, 54, false);
}

TEST_F(TrafficShapesTest, QinQTagsInThePayloadCountLikeUntaggedFramesPlusTheirTags) {
  check_vlan(*network_, *exporter_, sender_ns_, 55, true);
}

// IPsec tunnel mode between the sender's namespace and the host, policies
// and states set by hand (no daemon), null cipher: the receiving device
// counts each ESP packet once, not again when xfrm hands the decrypted
// packet back through it.
TEST_F(TrafficShapesTest, IpsecTunnelModeCountsEachEspPacketOnce) {
  constexpr int kDatagrams = 400;
  const VethPair pair = network_->add_veth_pair("ih", "", "is", sender_ns_, 56);
  const std::string inner_host = "198.51.100.229", inner_sender = "198.51.100.230";
  const std::string spi = "0x" + std::to_string(1000 + ::getpid() % 1000);
  const auto state = [&](const std::string& from, const std::string& to) {
    return std::vector<std::string>{
        "ip",    "xfrm", "state",       "add", "src",  from,     "dst", to,
        "proto", "esp",  "spi",         spi,   "mode", "tunnel", "enc", "ecb(cipher_null)",
        "",      "auth", "digest_null", ""};
  };
  const CommandResult made = run_command(state(pair.b.address, pair.a.address));
  if (made.exit_code != 0)
    GTEST_SKIP() << "this kernel refuses an ESP state (xfrm_user, esp4, crypto_null): "
                 << made.output;
  // Host side: the state and the inbound policy; removed at the end.
  struct Cleanup {
    std::string spi, from, to;
    ~Cleanup() {
      run_command(
          {"ip", "xfrm", "state", "del", "src", from, "dst", to, "proto", "esp", "spi", spi});
      run_command({"ip", "xfrm", "policy", "del", "src", "198.51.100.230/32", "dst",
                   "198.51.100.229/32", "dir", "in"});
    }
  } cleanup{spi, pair.b.address, pair.a.address};
  network_->run_in("", {"ip", "xfrm", "policy", "add", "src", inner_sender + "/32", "dst",
                        inner_host + "/32", "dir", "in", "tmpl", "src", pair.b.address, "dst",
                        pair.a.address, "proto", "esp", "mode", "tunnel"});
  network_->run_in("", {"ip", "addr", "add", inner_host + "/32", "dev", pair.a.name});
  network_->run_in(sender_ns_, state(pair.b.address, pair.a.address));
  network_->run_in(sender_ns_, {"ip", "xfrm", "policy", "add", "src", inner_sender + "/32", "dst",
                                inner_host + "/32", "dir", "out", "tmpl", "src", pair.b.address,
                                "dst", pair.a.address, "proto", "esp", "mode", "tunnel"});
  network_->run_in(sender_ns_, {"ip", "addr", "add", inner_sender + "/32", "dev", pair.b.name});
  network_->run_in(sender_ns_, {"ip", "route", "add", inner_host + "/32", "dev", pair.b.name, "src",
                                inner_sender});

  const Count before = exported(pair.a.name);
  const long long rx_before = link_counter("", pair.a.name, "rx_packets");
  ASSERT_EQ(send_udp(sender_ns_, kSenderCpu, inner_host, kDatagrams, 100), kDatagrams);
  const long long esp_packets = link_counter("", pair.a.name, "rx_packets") - rx_before;
  const Count count =
      exported_when(pair.a.name,
                    [&](const Count& now) { return (now - before).packets >= esp_packets; }) -
      before;
  const CommandResult states = run_command({"ip", "-s", "xfrm", "state", "list", "spi", spi});
  std::printf("ESP packets received %lld; exported %.0f packets\n%s", esp_packets, count.packets,
              states.output.c_str());
  EXPECT_EQ(esp_packets, kDatagrams) << "each datagram went as one ESP packet";
  EXPECT_EQ(count.packets, static_cast<double>(esp_packets))
      << "the decrypted packets were counted again";
}

// Multicast that a host sends is looped back to it through the sending
// device (IP_MULTICAST_LOOP, the default, when the host is a member of the
// group): not a packet the device received, and not counted; the receiving
// end of the link counts each datagram, and a macvlan device on it counts
// its copy of each multicast frame (the only events macvlan devices get).
TEST_F(TrafficShapesTest, LoopedBackMulticastIsNotReceivedAndMacvlanCountsItsCopies) {
  constexpr int kDatagrams = 300;
  constexpr int kPayload = 200;
  const VethPair pair = network_->add_veth_pair("mh", "", "ms", sender_ns_, 53);
  const std::string group = "239.1.2." + std::to_string(3 + ::getpid() % 200);
  // The sender joins the group on its device (see send_udp): the kernel
  // loops each datagram back.
  network_->run_in(sender_ns_, {"ip", "route", "add", "224.0.0.0/4", "dev", pair.b.name});
  const CommandResult made = run_command({"ip", "link", "add", network_->prefix() + "mv", "link",
                                          pair.a.name, "type", "macvlan", "mode", "bridge"});
  if (const std::string reason = missing_driver(made); !reason.empty())
    GTEST_SKIP() << "this kernel has no macvlan driver: " << reason;
  run_command({"ip", "link", "del", network_->prefix() + "mv"});
  const std::string macvlan =
      network_->add_link("", "mv", {"link", pair.a.name, "type", "macvlan", "mode", "bridge"});
  network_->run_in("", {"ip", "link", "set", macvlan, "allmulticast", "on", "up"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));

  const Count sender_before = exported(pair.b.name);
  const Count receiver_before = exported(pair.a.name);
  const Count macvlan_before = exported(macvlan);
  const long long sender_rx_before = link_counter(sender_ns_, pair.b.name, "rx_packets");
  const long long receiver_rx_before = link_counter("", pair.a.name, "rx_packets");

  ASSERT_EQ(send_udp(sender_ns_, kSenderCpu, group, kDatagrams, kPayload), kDatagrams);
  // Unicast to the lower device: macvlan gets no event for it.
  ASSERT_EQ(send_udp(sender_ns_, kSenderCpu, pair.a.address, kDatagrams, kPayload), kDatagrams);

  exported_when(pair.a.name, [&](const Count& now) {
    return (now - receiver_before).packets >= 2 * kDatagrams;
  });
  // The kernel's counters and the exporter's, read until they agree (a
  // membership report may arrive between two reads): 5 s at most.
  Count receiver, macvlan_count, sender;
  long long sender_rx = 0, receiver_rx = 0;
  for (int attempt = 0; attempt < 50; ++attempt) {
    sender_rx = link_counter(sender_ns_, pair.b.name, "rx_packets") - sender_rx_before;
    receiver_rx = link_counter("", pair.a.name, "rx_packets") - receiver_rx_before;
    receiver = exported(pair.a.name) - receiver_before;
    macvlan_count = exported(macvlan) - macvlan_before;
    sender = exported(pair.b.name) - sender_before;
    if (receiver.packets == static_cast<double>(receiver_rx) &&
        sender.packets == static_cast<double>(sender_rx) &&
        macvlan_count.packets == static_cast<double>(receiver_rx - kDatagrams)) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // The group's membership reports (IGMP) are multicast frames too.
  const long long multicast_frames = receiver_rx - kDatagrams;
  std::printf(
      "sending device: exported %.0f packets (its rx_packets %lld); receiving device %.0f (its "
      "rx_packets %lld, %d datagrams sent); macvlan %.0f of %lld multicast frames\n",
      sender.packets, sender_rx, receiver.packets, receiver_rx, 2 * kDatagrams,
      macvlan_count.packets, multicast_frames);

  EXPECT_EQ(sender.packets, static_cast<double>(sender_rx))
      << "the looped-back copies were counted as received";
  EXPECT_EQ(receiver.packets, static_cast<double>(receiver_rx));
  EXPECT_GE(multicast_frames, kDatagrams) << "the datagrams did not all arrive";
  EXPECT_EQ(macvlan_count.packets, static_cast<double>(multicast_frames))
      << "the macvlan device counts its copy of each multicast frame and nothing else";
}

void check_vlan(TestNetwork& network, ExporterProcess& exporter, const std::string& sender_ns,
                int subnet, bool qinq) {
  const std::string kind = qinq ? "q" : "v";
  const VethPair pair = network.add_veth_pair(kind + "h", "", kind + "s", sender_ns, subnet);
  network.set_features("", pair.a.name, {"gro", "on"});
  // Room for the second tag, as a QinQ provider's link has: a veth drops a
  // frame longer than its MTU and one tag.
  if (qinq) {
    network.run_in("", {"ip", "link", "set", pair.a.name, "mtu", "1504"});
    network.run_in(sender_ns, {"ip", "link", "set", pair.b.name, "mtu", "1504"});
  }
  // The tags in the payload: the sending veth inserts them in software.
  network.set_features(sender_ns, pair.b.name, {"txvlan", "off", "tx-vlan-stag-hw-insert", "off"});
  const CommandResult made = run_command({"ip", "link", "add", network.prefix() + kind + "p",
                                          "link", pair.a.name, "type", "vlan", "id", "20"});
  if (const std::string reason = missing_driver(made); !reason.empty())
    GTEST_SKIP() << "this kernel has no VLAN driver (8021q.ko): " << reason;
  run_command({"ip", "link", "del", network.prefix() + kind + "p"});

  // Each end: the outer VLAN device on the veth, and with QinQ an 802.1Q
  // device on it.
  std::vector<std::string> devices;
  const std::string base = "198.51.100.";
  for (const VethEnd* end : {&pair.a, &pair.b}) {
    std::vector<std::string> args{"link", end->name, "type", "vlan"};
    if (qinq) args.insert(args.end(), {"proto", "802.1ad"});
    args.insert(args.end(), {"id", "20"});
    std::string device = network.add_link(end->netns, kind + (end == &pair.a ? "o" : "O"), args);
    network.run_in(end->netns, {"ip", "link", "set", device, "up"});
    if (qinq) {
      // The inner device's packets are as long as without tags (it took the
      // outer's MTU, raised for the second tag).
      device = network.add_link(end->netns, kind + (end == &pair.a ? "i" : "I"),
                                {"link", device, "type", "vlan", "id", "10"});
      network.run_in(end->netns, {"ip", "link", "set", device, "mtu", "1500", "up"});
    }
    const int host = end == &pair.a ? 1 : 2;
    network.run_in(end->netns, {"ip", "addr", "add",
                                base + std::to_string(4 * subnet + host) + "/30", "dev", device});
    devices.push_back(device);
  }
  const std::string destination = base + std::to_string(4 * subnet + 1);
  const int tags = qinq ? 2 : 1;
  const int headers = kInnerTcpHeaders + 4 * tags;

  for (const bool tso : {false, true}) {
    SCOPED_TRACE(tso ? "the sender's TSO skbs" : "MTU frames merged by GRO");
    const std::string on = tso ? "on" : "off";
    for (const auto& [netns, link] :
         {std::pair{sender_ns, pair.b.name}, std::pair{sender_ns, devices[1]}}) {
      network.set_features(netns, link, {"tso", on, "gso", on});
    }
    const auto count_now = [&] {
      const Series series = exporter.scrape();
      const Labels match{{"device", pair.a.name}};
      return Count{sum_where(series, "netif_rx_packets_total", match),
                   sum_where(series, "netif_rx_skbs_total", match),
                   sum_where(series, "netif_rx_bytes_total", match)};
    };
    const Count before = count_now();
    const long long rx_before = link_counter("", pair.a.name, "rx_packets");
    const TransferResult transfer =
        send_tcp_bulk(sender_ns, kSenderCpu, destination, kBulkBytes / 2);
    ASSERT_TRUE(transfer.ok) << transfer.error;
    const double received =
        static_cast<double>(link_counter("", pair.a.name, "rx_packets") - rx_before);
    Count count = count_now() - before;
    for (int wait = 0; wait < 100 && count.packets < static_cast<double>(transfer.segments);
         ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      count = count_now() - before;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    count = count_now() - before;
    const double segments = static_cast<double>(transfer.segments);
    const double expected_bytes = static_cast<double>(transfer.wire_bytes) + headers * segments;
    std::printf(
        "%d tag(s), %s: received %.0f, TCP segments %.0f; exported packets %.0f, skbs %.0f, "
        "bytes %.0f of %.0f\n",
        tags, tso ? "TSO" : "MTU frames", received, segments, count.packets, count.skbs,
        count.bytes, expected_bytes);
    // ARP for the inner addresses crosses the link too: at least the segments.
    EXPECT_GE(count.packets, segments);
    EXPECT_LE(count.packets, segments + 4);
    if (tso) {
      EXPECT_EQ(count.skbs, received) << "the veth counts the skbs it received";
      EXPECT_LE(count.skbs * 4, count.packets) << "the sender did not hand over TSO skbs";
    } else {
      EXPECT_LE(count.skbs * 2, count.packets) << "GRO merged no tagged frames";
    }
    EXPECT_LE(std::fabs(count.bytes - expected_bytes), 0.005 * expected_bytes)
        << "exported " << count.bytes << " bytes, expected " << expected_bytes;
  }
}

}  // namespace
}  // namespace netif_rx::test
