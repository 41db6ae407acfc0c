// The probe against the real kernel: exact per-device, per-CPU counts of
// known traffic, through the exporter's HTTP endpoint.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <thread>

#include "exporter_process.h"
#include "pipeline/cpu_list.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

constexpr int kPayloadBytes = 100;

double value_of(const Series& series, const std::string& name,
                const std::map<std::string, std::string>& labels) {
  const auto found = series.find(series_key(name, labels));
  return found == series.end() ? 0.0 : found->second;
}

bool has_device(const Series& series, const std::string& device) {
  for (const auto& [key, value] : series) {
    if (key.find("device=\"" + device + "\"") != std::string::npos) return true;
  }
  return false;
}

class PacketCountingTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    network_ = std::make_unique<TestNetwork>("nrx" + std::to_string(::getpid() % 100000));
    ns_a_ = network_->add_namespace("a");
    ns_b_ = network_->add_namespace("b");
    // host <-> A: counted by default on the host end.
    host_pair_ = network_->add_veth_pair("h0", "", "a0", ns_a_, 0);
    // host <-> B, never used: must not move.
    idle_pair_ = network_->add_veth_pair("h1", "", "b1", ns_b_, 1);
    // A <-> B: both ends in other namespaces, not counted by default.
    inner_pair_ = network_->add_veth_pair("a2", ns_a_, "b2", ns_b_, 2);
    exporter_ = std::make_unique<ExporterProcess>("poll_interval: 100ms\n");
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

  // Scrapes until `done` holds or 5 s pass; returns the last scrape.
  static Series scrape_until(const std::function<bool(const Series&)>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    Series series = exporter_->scrape();
    while (!done(series) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      series = exporter_->scrape();
    }
    return series;
  }

  // Two more poll intervals, so that a count that would overshoot shows.
  static Series settle() {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return exporter_->scrape();
  }

  static inline std::unique_ptr<TestNetwork> network_;
  static inline std::unique_ptr<ExporterProcess> exporter_;
  static inline std::string ns_a_;
  static inline std::string ns_b_;
  static inline VethPair host_pair_;
  static inline VethPair idle_pair_;
  static inline VethPair inner_pair_;
};

TEST_F(PacketCountingTest, CountsExactPacketsAndBytesOnTheSendersCpu) {
  const std::vector<unsigned> cpus = present_cpus();
  const std::string device = host_pair_.a.name;
  const Series before = exporter_->scrape();

  std::map<unsigned, int> sent;
  int count = 1000;
  for (unsigned cpu : cpus) {
    ASSERT_EQ(send_udp(ns_a_, cpu, host_pair_.a.address, count, kPayloadBytes), count);
    sent[cpu] = count;
    count -= 300;  // a different number per CPU, so a mix-up shows
    if (count <= 0) break;
  }

  const auto grown = [&](const Series& series) {
    for (const auto& [cpu, n] : sent) {
      const std::map<std::string, std::string> labels{{"device", device},
                                                      {"cpu", std::to_string(cpu)}};
      if (value_of(series, "netif_rx_packets_total", labels) <
          value_of(before, "netif_rx_packets_total", labels) + n) {
        return false;
      }
    }
    return true;
  };
  scrape_until(grown);
  const Series after = settle();

  for (unsigned cpu : cpus) {
    const std::map<std::string, std::string> labels{{"device", device},
                                                    {"cpu", std::to_string(cpu)}};
    const int expected = sent.count(cpu) ? sent[cpu] : 0;
    EXPECT_EQ(value_of(after, "netif_rx_packets_total", labels) -
                  value_of(before, "netif_rx_packets_total", labels),
              expected)
        << "packets of " << device << " on cpu " << cpu;
    EXPECT_EQ(value_of(after, "netif_rx_bytes_total", labels) -
                  value_of(before, "netif_rx_bytes_total", labels),
              static_cast<double>(expected) * udp_skb_len(kPayloadBytes))
        << "bytes of " << device << " on cpu " << cpu;
  }
}

TEST_F(PacketCountingTest, DevicesOfOtherNamespacesAreNotCountedByDefault) {
  ASSERT_EQ(send_udp(ns_a_, 0, inner_pair_.b.address, 200, kPayloadBytes), 200);
  ASSERT_EQ(send_udp(ns_b_, 0, inner_pair_.a.address, 200, kPayloadBytes), 200);
  // The replies the host end sends back land in namespace A: not counted either.
  ASSERT_EQ(send_udp(ns_a_, 0, host_pair_.a.address, 10, kPayloadBytes), 10);
  scrape_until([&](const Series& series) { return has_device(series, host_pair_.a.name); });
  const Series after = settle();

  EXPECT_TRUE(has_device(after, host_pair_.a.name));
  for (const auto& name : {inner_pair_.a.name, inner_pair_.b.name, host_pair_.b.name}) {
    EXPECT_FALSE(has_device(after, name)) << name << " lives in another namespace";
  }
}

TEST_F(PacketCountingTest, IdleDeviceDoesNotMove) {
  const Series before = exporter_->scrape();
  ASSERT_EQ(send_udp(ns_a_, 0, host_pair_.a.address, 100, kPayloadBytes), 100);
  settle();
  const Series after = settle();
  for (unsigned cpu : present_cpus()) {
    const std::map<std::string, std::string> labels{{"device", idle_pair_.a.name},
                                                    {"cpu", std::to_string(cpu)}};
    EXPECT_EQ(value_of(after, "netif_rx_packets_total", labels),
              value_of(before, "netif_rx_packets_total", labels));
    EXPECT_EQ(value_of(after, "netif_rx_packets_total", labels), 0);
  }
}

TEST_F(PacketCountingTest, ExportsOnlyPresentCpusAndTheSelfMetrics) {
  const Series series = exporter_->scrape();
  const auto cpus = present_cpus();
  for (unsigned cpu : cpus) {
    EXPECT_TRUE(series.count(
        series_key("netif_rx_untracked_packets_total", {{"cpu", std::to_string(cpu)}})));
  }
  EXPECT_FALSE(series.count(
      series_key("netif_rx_untracked_packets_total", {{"cpu", std::to_string(cpus.back() + 1)}})));
  EXPECT_EQ(series.at("netif_rx_exporter_probe_attached"), 1);
  EXPECT_GT(series.at("netif_rx_exporter_last_poll_timestamp_seconds"), 1.6e9);
  EXPECT_GT(series.at("netif_rx_exporter_poll_duration_seconds_count"), 0);
}

}  // namespace
}  // namespace netif_rx::test
