// Both twins of the probe count the same packets: tp_btf (preferred) and the
// classic tracepoint (the fallback for kernels without BTF-typed tracepoints).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "exporter_process.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

constexpr int kPackets = 321;
constexpr int kPayloadBytes = 64;

// Sends kPackets from the namespace end on CPU 0 and returns how much the
// host end's cpu="0" series grew, in packets and bytes.
std::pair<double, double> count_through(ExporterProcess& exporter, const VethPair& pair) {
  const std::string key_packets =
      series_key("netif_rx_packets_total", {{"cpu", "0"}, {"device", pair.a.name}});
  const std::string key_bytes =
      series_key("netif_rx_bytes_total", {{"cpu", "0"}, {"device", pair.a.name}});
  const auto value = [](const Series& series, const std::string& key) {
    const auto found = series.find(key);
    return found == series.end() ? 0.0 : found->second;
  };
  const Series before = exporter.scrape();
  EXPECT_EQ(send_udp(pair.b.netns, 0, pair.a.address, kPackets, kPayloadBytes), kPackets);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  Series after = exporter.scrape();
  while (value(after, key_packets) < value(before, key_packets) + kPackets &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    after = exporter.scrape();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  after = exporter.scrape();
  return {value(after, key_packets) - value(before, key_packets),
          value(after, key_bytes) - value(before, key_bytes)};
}

class AttachModeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
    network_ = std::make_unique<TestNetwork>("nrm" + std::to_string(::getpid() % 100000));
    const std::string ns = network_->add_namespace("n");
    pair_ = network_->add_veth_pair("h", "", "n", ns, 5);
  }

  std::unique_ptr<TestNetwork> network_;
  VethPair pair_;
};

TEST_F(AttachModeTest, AutoAttachesTheBtfTracepoint) {
  ExporterProcess exporter("poll_interval: 100ms\nattach: auto\nper_cpu: {devices: all}\n");
  ASSERT_TRUE(exporter.wait_ready()) << exporter.log();
  EXPECT_NE(exporter.log().find(
                "msg=\"probe attached\" program=netif_rx_btf attach=tp_btf/netif_receive_skb"),
            std::string::npos)
      << exporter.log();
  const auto [packets, bytes] = count_through(exporter, pair_);
  EXPECT_EQ(packets, kPackets);
  EXPECT_EQ(bytes, static_cast<double>(kPackets) * udp_skb_len(kPayloadBytes));
}

// The classic tracepoint needs tracefs: mount it in a private mount namespace
// of the exporter's own, so the host's mounts are left as they are.
TEST_F(AttachModeTest, ClassicTracepointCountsTheSame) {
  ExporterProcess exporter("poll_interval: 100ms\nattach: tracepoint\nper_cpu: {devices: all}\n",
                           {}, "", with_tracefs());
  ASSERT_TRUE(exporter.wait_ready()) << exporter.log();
  EXPECT_NE(
      exporter.log().find(
          "msg=\"probe attached\" program=netif_rx_tp attach=tracepoint/net/netif_receive_skb"),
      std::string::npos)
      << exporter.log();
  const auto [packets, bytes] = count_through(exporter, pair_);
  EXPECT_EQ(packets, kPackets);
  EXPECT_EQ(bytes, static_cast<double>(kPackets) * udp_skb_len(kPayloadBytes));
}

}  // namespace
}  // namespace netif_rx::test
