// The probe against the real kernel: exact per-device, per-CPU counts of
// known traffic, the device classes and the spread summary, through the
// exporter's HTTP endpoint.
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
    // The host end of the used pair kept per CPU (per_cpu.include); the idle
    // pair's host end summed, as a veth is by default.
    exporter_ = std::make_unique<ExporterProcess>("poll_interval: 100ms\nper_cpu:\n  include: ['" +
                                                  host_pair_.a.name + "']\n");
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
  const std::map<std::string, std::string> labels{{"device", idle_pair_.a.name}};
  EXPECT_EQ(value_of(after, "netif_rx_packets_total", labels),
            value_of(before, "netif_rx_packets_total", labels));
  EXPECT_EQ(value_of(after, "netif_rx_packets_total", labels), 0);
}

// The per-CPU device has series only for the CPUs it counted packets on; the
// busiest CPU's counter of traffic pinned to one CPU grows by exactly the
// packets (its share is 1), also when the traffic moves to another CPU.
TEST_F(PacketCountingTest, PinnedTrafficBusiestCpuCountsEveryPacket) {
  const std::vector<unsigned> cpus = present_cpus();
  const std::string device = host_pair_.a.name;
  const std::map<std::string, std::string> labels{{"device", device}};
  // The device's first poll is the summary's baseline: a packet first.
  ASSERT_EQ(send_udp(ns_a_, cpus.front(), host_pair_.a.address, 1, kPayloadBytes), 1);
  scrape_until([&](const Series& series) {
    return series.count(series_key("netif_rx_busiest_cpu_packets_total", labels)) != 0;
  });
  const Series before = settle();
  const auto total_packets = [&](const Series& series) {
    double sum = 0;
    for (unsigned cpu : cpus) {
      sum += value_of(series, "netif_rx_packets_total",
                      {{"device", device}, {"cpu", std::to_string(cpu)}});
    }
    return sum;
  };
  int sent = 0;
  for (unsigned cpu : {cpus.back(), cpus.front()}) {
    // One CPU at a time, each burst within or across poll intervals alike.
    ASSERT_EQ(send_udp(ns_a_, cpu, host_pair_.a.address, 400, kPayloadBytes), 400);
    sent += 400;
    scrape_until([&](const Series& series) {
      return total_packets(series) >= total_packets(before) + sent;
    });
    settle();
  }
  const Series after = settle();
  EXPECT_EQ(total_packets(after) - total_packets(before), sent);
  EXPECT_EQ(value_of(after, "netif_rx_busiest_cpu_packets_total", labels) -
                value_of(before, "netif_rx_busiest_cpu_packets_total", labels),
            sent);
  // The included device is per CPU: every series of it but the summary has a cpu label.
  for (const auto& [key, value] : after) {
    if (key.find("device=\"" + device + "\"") == std::string::npos) continue;
    if (key.rfind("netif_rx_busiest_cpu_packets_total", 0) == 0) continue;
    // Drops are per device for every class (the host may drop a stray packet).
    if (key.rfind("netif_rx_drops_total", 0) == 0) continue;
    EXPECT_NE(key.find("cpu=\""), std::string::npos) << key;
  }
}

// Without a per-CPU device class a device's packets come summed, without a
// cpu label, and the busiest CPU's counter beside them.
TEST_F(PacketCountingTest, OtherDevicesAreSummedWithTheirBusiestCpu) {
  ExporterProcess summed("poll_interval: 100ms\n");
  ASSERT_TRUE(summed.wait_ready()) << summed.log();
  const std::map<std::string, std::string> labels{{"device", host_pair_.a.name}};
  ASSERT_EQ(send_udp(ns_a_, 0, host_pair_.a.address, 1, kPayloadBytes), 1);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  Series before = summed.scrape();
  while (!before.count(series_key("netif_rx_busiest_cpu_packets_total", labels)) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    before = summed.scrape();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  before = summed.scrape();
  ASSERT_EQ(send_udp(ns_a_, present_cpus().back(), host_pair_.a.address, 300, kPayloadBytes), 300);
  Series after = summed.scrape();
  while (value_of(after, "netif_rx_packets_total", labels) <
             value_of(before, "netif_rx_packets_total", labels) + 300 &&
         std::chrono::steady_clock::now() < deadline + std::chrono::seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    after = summed.scrape();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  after = summed.scrape();
  EXPECT_EQ(value_of(after, "netif_rx_packets_total", labels) -
                value_of(before, "netif_rx_packets_total", labels),
            300);
  EXPECT_EQ(value_of(after, "netif_rx_busiest_cpu_packets_total", labels) -
                value_of(before, "netif_rx_busiest_cpu_packets_total", labels),
            300);
  for (const auto& [key, value] : after) {
    if (key.find("device=\"" + host_pair_.a.name + "\"") == std::string::npos) continue;
    EXPECT_EQ(key.find("cpu=\""), std::string::npos) << key;
  }
  EXPECT_GT(after.at("netif_rx_exporter_series"), 0);
  EXPECT_EQ(after.at("netif_rx_exporter_folded_devices"), 0);
}

TEST_F(PacketCountingTest, ExportsOnlyPresentCpusAndTheSelfMetrics) {
  // The totals come summed (per_cpu.devices: physical): no cpu label.
  const Series series = exporter_->scrape();
  EXPECT_TRUE(series.count(series_key("netif_rx_untracked_packets_total", {})));
  EXPECT_FALSE(series.count(series_key("netif_rx_untracked_packets_total", {{"cpu", "0"}})));
  EXPECT_EQ(series.at("netif_rx_exporter_probe_attached"), 1);
  EXPECT_GT(series.at("netif_rx_exporter_last_poll_timestamp_seconds"), 1.6e9);
  EXPECT_GT(series.at("netif_rx_exporter_poll_duration_seconds_count"), 0);
}

}  // namespace
}  // namespace netif_rx::test
