// Packets as they arrived: the probe against the kernel's GRO and the
// senders' TSO/GSO on a veth pair with GRO on, checked against counters no
// one here wrote (the sender's and the receiving device's own, TCP's
// segment counts) and against what the test sent, through the exporter's HTTP
// endpoint.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "bulk_traffic.h"
#include "exporter_process.h"
#include "series_query.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

constexpr std::uint64_t kBulkBytes = 16ULL << 20;
constexpr unsigned kSenderCpu = 0;
constexpr double kMtu = 1500;
// Network and TCP headers of each segment: IPv4 20 or IPv6 40, TCP 20 with
// the 12 bytes of timestamps that Linux sends by default.
constexpr int kTcpHeadersV4 = 20 + 32;
constexpr int kTcpHeadersV6 = 40 + 32;

// The exporter's view of one device, summed over CPUs.
struct DeviceCount {
  double packets = 0;
  double skbs = 0;
  double bytes = 0;
};

// The counters of both ends of the pair.
struct LinkCounts {
  long long receiver_rx_packets = 0;
  long long sender_tx_packets = 0;
  long long dropped = 0;  // the sender's tx_dropped and the receiver's rx_dropped
};

LinkCounts operator-(const LinkCounts& a, const LinkCounts& b) {
  return {a.receiver_rx_packets - b.receiver_rx_packets, a.sender_tx_packets - b.sender_tx_packets,
          a.dropped - b.dropped};
}

DeviceCount operator-(const DeviceCount& a, const DeviceCount& b) {
  return {a.packets - b.packets, a.skbs - b.skbs, a.bytes - b.bytes};
}

class AggregationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    network_ = std::make_unique<TestNetwork>("nrg" + std::to_string(::getpid() % 100000));
    sender_ns_ = network_->add_namespace("s");
    pair_ = network_->add_veth_pair("g0", "", "s0", sender_ns_, 40);
    network_->add_ipv6(pair_, 40);
    // The receiving end merges (NAPI with GRO on a veth: Linux 5.13 and later).
    network_->set_features("", pair_.a.name, {"gro", "on"});
    exporter_ = std::make_unique<ExporterProcess>("poll_interval: 100ms\n");
    // The multicast reports of the new IPv6 address go out now: let them pass.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
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

  // `tso`: the sender hands over 64 KiB TCP skbs; otherwise MTU frames, as a
  // physical NIC receives them.
  static void set_sender_offloads(bool tso) {
    const std::string on = tso ? "on" : "off";
    network_->set_features(sender_ns_, pair_.b.name,
                           {"tso", on, "gso", on, "tx-udp-segmentation", on});
  }

  static DeviceCount exported() { return exported_by(*exporter_); }

  static DeviceCount exported_by(ExporterProcess& exporter) {
    const Series series = exporter.scrape();
    const Labels device{{"device", pair_.a.name}};
    return {sum_where(series, "netif_rx_packets_total", device),
            sum_where(series, "netif_rx_skbs_total", device),
            sum_where(series, "netif_rx_bytes_total", device)};
  }

  // What the exporter knows beyond the device's count, for a count that does
  // not match: runs of the probe the kernel skipped (either twin), the
  // probe's own total, the untracked total, and how old its last poll is.
  static std::string probe_state() {
    const Series series = exporter_->scrape();
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    char text[320];
    std::snprintf(
        text, sizeof text,
        "probe state: recursion misses %.0f, counted packets %.0f, untracked packets "
        "%.0f, fallbacks %.0f, last poll %.2f s ago",
        sum_where(series, "netif_rx_bpf_recursion_misses_total", {{"program", "netif_rx_btf"}}) +
            sum_where(series, "netif_rx_bpf_recursion_misses_total", {{"program", "netif_rx_tp"}}),
        sum_where(series, "netif_rx_counted_packets_total", {}),
        sum_where(series, "netif_rx_untracked_packets_total", {}),
        sum_where(series, "netif_rx_gso_fallbacks_total", {}),
        now - sum_where(series, "netif_rx_exporter_last_poll_timestamp_seconds", {}));
    return text;
  }

  static double fallbacks() {
    return sum_where(exporter_->scrape(), "netif_rx_gso_fallbacks_total", {});
  }

  static LinkCounts link_counts() {
    return {link_counter("", pair_.a.name, "rx_packets"),
            link_counter(sender_ns_, pair_.b.name, "tx_packets"),
            link_counter(sender_ns_, pair_.b.name, "tx_dropped") +
                link_counter("", pair_.a.name, "rx_dropped")};
  }

  // The exporter's count once it has caught up with the receiving device:
  // it polls every 100 ms; 5 s at most.
  static DeviceCount exported_when(const std::function<bool(const DeviceCount&)>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    DeviceCount count = exported();
    while (!done(count) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      count = exported();
    }
    // Two more polls, so that a count that would overshoot shows.
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    return exported();
  }

  static void print(const char* what, const LinkCounts& links, long long segments,
                    const DeviceCount& count, double expected_bytes) {
    std::printf(
        "%s: sender tx_packets %lld (dropped %lld), TCP segments %lld, receiver rx_packets %lld; "
        "exported "
        "packets %.0f, skbs %.0f (%.1f packets per skb), bytes %.0f vs %.0f expected (%+.3f "
        "%%)\n",
        what, links.sender_tx_packets, links.dropped, segments, links.receiver_rx_packets,
        count.packets, count.skbs, count.skbs > 0 ? count.packets / count.skbs : 0.0, count.bytes,
        expected_bytes, 100.0 * (count.bytes - expected_bytes) / expected_bytes);
  }

  // What the sender put on the wire at the network layer, as its TCP counted
  // it: the payload (retransmissions included) and the headers of each
  // segment. (The veth's own byte counters are not comparable: with NAPI
  // they count after the Ethernet header is pulled.)
  static double sent_l3_bytes(const TransferResult& transfer, int headers) {
    return static_cast<double>(transfer.wire_bytes) +
           static_cast<double>(headers) * static_cast<double>(transfer.segments);
  }

  static void expect_bytes_within_half_percent(double bytes, double expected) {
    EXPECT_LE(std::fabs(bytes - expected), 0.005 * expected)
        << "exported " << bytes << " bytes, expected " << expected;
  }

  // MTU frames from the sender, merged by the receiver's GRO: every frame the
  // devices count is a packet; the skbs are far fewer.
  static void check_mtu_frames(const std::string& destination, int headers) {
    set_sender_offloads(false);
    const LinkCounts links_before = link_counts();
    const DeviceCount before = exported();
    const double fallbacks_before = fallbacks();

    const TransferResult transfer = send_tcp_bulk(sender_ns_, kSenderCpu, destination, kBulkBytes);
    ASSERT_TRUE(transfer.ok) << transfer.error;

    const LinkCounts links = link_counts() - links_before;
    const DeviceCount count =
        exported_when([&](const DeviceCount& now) {
          return (now - before).packets >= static_cast<double>(links.receiver_rx_packets);
        }) -
        before;
    // A segment the veth dropped (its ring full on a busy machine) never
    // reached the receiving device: TCP sent it again.
    const double l3_bytes = sent_l3_bytes(transfer, headers) - kMtu * links.dropped;
    print(destination.c_str(), links, transfer.segments, count, l3_bytes);

    EXPECT_EQ(links.receiver_rx_packets, links.sender_tx_packets);
    EXPECT_EQ(count.packets, static_cast<double>(links.receiver_rx_packets))
        << "every MTU frame the device received is a packet; " << probe_state();
    EXPECT_EQ(count.packets, static_cast<double>(transfer.segments - links.dropped))
        << "every TCP segment the sender sent (and the veth did not drop) is a packet";
    EXPECT_LE(count.skbs * 2, count.packets) << "GRO merged nothing: is GRO on?";
    EXPECT_GT(count.skbs, 0);
    expect_bytes_within_half_percent(count.bytes, l3_bytes);
    EXPECT_EQ(fallbacks(), fallbacks_before);
  }

  static inline std::unique_ptr<TestNetwork> network_;
  static inline std::unique_ptr<ExporterProcess> exporter_;
  static inline std::string sender_ns_;
  static inline VethPair pair_;
};

TEST_F(AggregationTest, TcpMtuFramesOverIpv4CountEveryFrameThatGroMerged) {
  check_mtu_frames(pair_.a.address, kTcpHeadersV4);
}

TEST_F(AggregationTest, TcpMtuFramesOverIpv6CountEveryFrameThatGroMerged) {
  check_mtu_frames(pair_.a.address6, kTcpHeadersV6);
}

// A TSO sender hands over 64 KiB skbs that the veth passes on whole: one skb
// is what the device counts, the packets are TCP's segments.
TEST_F(AggregationTest, TcpFromATsoSenderCountsItsSegments) {
  set_sender_offloads(true);
  // A 64 KiB skb the veth drops (its ring full on a busy machine) takes
  // segments with it that TCP counted as sent: such a transfer proves
  // nothing exactly, and is repeated (three times at most).
  for (int attempt = 1; attempt <= 3; ++attempt) {
    const LinkCounts links_before = link_counts();
    const DeviceCount before = exported();
    const double fallbacks_before = fallbacks();

    const TransferResult transfer =
        send_tcp_bulk(sender_ns_, kSenderCpu, pair_.a.address, kBulkBytes);
    ASSERT_TRUE(transfer.ok) << transfer.error;

    const LinkCounts links = link_counts() - links_before;
    const DeviceCount count =
        exported_when([&](const DeviceCount& now) {
          return (now - before).packets >= static_cast<double>(transfer.segments);
        }) -
        before;
    const double l3_bytes = sent_l3_bytes(transfer, kTcpHeadersV4);
    print("TSO sender", links, transfer.segments, count, l3_bytes);
    EXPECT_EQ(count.skbs, static_cast<double>(links.receiver_rx_packets))
        << "the veth counts the skbs it received; " << probe_state();
    if (links.dropped > 0 && attempt < 3) continue;

    EXPECT_EQ(links.dropped, 0) << "the veth dropped skbs in every attempt";
    EXPECT_EQ(count.packets, static_cast<double>(transfer.segments))
        << "every TCP segment the sender sent is a packet";
    EXPECT_LE(links.receiver_rx_packets * 4, transfer.segments)
        << "the sender did not hand over large skbs: is TSO on?";
    expect_bytes_within_half_percent(count.bytes, l3_bytes);
    EXPECT_EQ(fallbacks(), fallbacks_before);
    break;
  }
}

// UDP: datagrams segmented by the sender's stack arrive as a burst that GRO
// merges for a socket with UDP_GRO on; with UDP segmentation offload on, the
// sender's GSO skbs arrive whole.
TEST_F(AggregationTest, UdpDatagramsCountThroughGroAndGso) {
  constexpr int kDatagrams = 6400;
  constexpr int kPayload = 1200;
  for (const bool gso : {false, true}) {
    SCOPED_TRACE(gso ? "UDP GSO skbs" : "UDP datagrams merged by GRO");
    set_sender_offloads(gso);
    const LinkCounts links_before = link_counts();
    const DeviceCount before = exported();

    const TransferResult transfer =
        send_udp_to_gro_socket(sender_ns_, kSenderCpu, pair_.a.address, kDatagrams, kPayload);
    ASSERT_TRUE(transfer.ok) << transfer.error;

    const LinkCounts links = link_counts() - links_before;
    const DeviceCount count = exported_when([&](const DeviceCount& now) {
                                return (now - before).packets >= kDatagrams;
                              }) -
                              before;
    const double l3_bytes = static_cast<double>(kDatagrams) * (20 + 8 + kPayload);
    print(gso ? "UDP GSO" : "UDP GRO", links, 0, count, l3_bytes);

    EXPECT_EQ(count.packets, kDatagrams) << "every datagram sent is a packet";
    if (gso) {
      EXPECT_EQ(count.skbs, static_cast<double>(links.receiver_rx_packets));
      EXPECT_LE(count.skbs * 4, count.packets) << "the sender's skbs were not GSO";
    } else {
      EXPECT_EQ(links.receiver_rx_packets, kDatagrams);
      EXPECT_LT(count.skbs, count.packets) << "GRO merged no datagram: is UDP_GRO on?";
    }
    expect_bytes_within_half_percent(count.bytes, l3_bytes);
  }
}

// The classic tracepoint twin (kernels without tp_btf) measures aggregates
// through probe reads: a second exporter on it counts the same transfer as
// the first one, packet for packet.
TEST_F(AggregationTest, TheClassicTracepointTwinCountsTheSameAggregates) {
  ExporterProcess twin("poll_interval: 100ms\nattach: tracepoint\n", {}, "", with_tracefs());
  ASSERT_TRUE(twin.wait_ready()) << twin.log();
  set_sender_offloads(false);
  const long long rx_before = link_counter("", pair_.a.name, "rx_packets");
  const DeviceCount twin_before = exported_by(twin);
  const DeviceCount before = exported();

  const TransferResult transfer =
      send_tcp_bulk(sender_ns_, kSenderCpu, pair_.a.address, kBulkBytes / 4);
  ASSERT_TRUE(transfer.ok) << transfer.error;

  const double frames =
      static_cast<double>(link_counter("", pair_.a.name, "rx_packets") - rx_before);
  const DeviceCount count =
      exported_when([&](const DeviceCount& now) { return (now - before).packets >= frames; }) -
      before;
  const DeviceCount twin_count = exported_by(twin) - twin_before;
  std::printf(
      "tp_btf: packets %.0f skbs %.0f bytes %.0f; tracepoint: packets %.0f skbs %.0f "
      "bytes %.0f; device frames %.0f\n",
      count.packets, count.skbs, count.bytes, twin_count.packets, twin_count.skbs, twin_count.bytes,
      frames);
  EXPECT_EQ(count.packets, frames);
  EXPECT_EQ(twin_count.packets, count.packets);
  EXPECT_EQ(twin_count.skbs, count.skbs);
  EXPECT_EQ(twin_count.bytes, count.bytes);
  EXPECT_LT(twin_count.skbs, twin_count.packets);
}

}  // namespace
}  // namespace netif_rx::test
