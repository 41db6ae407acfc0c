// NAPI pressure against the real kernel, through the exporter's HTTP
// endpoint: bursts of UDP segments into a veth with GRO on (its own NAPI
// context, polled on the sender's CPU) and into a veth without (the CPU's
// backlog), and a veth that stays idle.
#include <gtest/gtest.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "exporter_process.h"
#include "pipeline/cpu_list.h"
#include "series_query.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

constexpr int kPayloadBytes = 50;
constexpr int kBursts = 20;
constexpr int kSegments = 64;  // NAPI_POLL_WEIGHT and the backlog's weight
constexpr double kBudget = 64;

// veth takes packets through NAPI without an XDP program once GRO is on
// since Linux 5.13 (before, it hands them all to the backlog).
bool veth_gro_uses_napi() {
  utsname name{};
  int major = 0;
  int minor = 0;
  if (::uname(&name) != 0 || std::sscanf(name.release, "%d.%d", &major, &minor) != 2) return true;
  return major > 5 || (major == 5 && minor >= 13);
}

class NapiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    network_ = std::make_unique<TestNetwork>("nrn" + std::to_string(::getpid() % 100000));
    ns_a_ = network_->add_namespace("a");
    ns_b_ = network_->add_namespace("b");
    // a0 -> b0: b0 with GRO on, so veth takes its packets through NAPI.
    flood_ = network_->add_veth_pair("a0", ns_a_, "b0", ns_b_, 0);
    network_->set_features(ns_b_, flood_.b.name, {"gro", "on"});
    // The sender segments each datagram itself (and sends no TSO frames,
    // which veth would hand to the backlog rather than to NAPI).
    network_->set_features(ns_a_, flood_.a.name, {"tx-udp-segmentation", "off", "tso", "off"});
    // c0 -> d0: d0 with GRO on, never sent to.
    idle_ = network_->add_veth_pair("c0", ns_a_, "d0", ns_b_, 1);
    network_->set_features(ns_b_, idle_.b.name, {"gro", "on"});
    // e0 -> f0: f0 without GRO: veth hands its packets to the CPU's backlog.
    backlog_ = network_->add_veth_pair("e0", ns_a_, "f0", ns_b_, 2);
    network_->set_features(ns_a_, backlog_.a.name, {"tx-udp-segmentation", "off"});
    exporter_ = std::make_unique<ExporterProcess>(
        "poll_interval: 100ms\nnamespaces: all\nper_cpu:\n  include: ['" + network_->prefix() +
        ".*']\n");
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

  static double device(const Series& series, const std::string& metric, const std::string& name,
                       unsigned cpu) {
    return sum_where(series, metric, {{"device", name}, {"cpu", std::to_string(cpu)}});
  }
  static double backlog(const Series& series, const std::string& metric, unsigned cpu) {
    return sum_where(series, metric, {{"cpu", std::to_string(cpu)}});
  }

  // Scrapes until `grown` says the counts are in or 5 s pass, then waits
  // two more polls and scrapes again.
  template <typename Grown>
  static Series scrape_when(Grown grown) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!grown(exporter_->scrape()) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return exporter_->scrape();
  }

  static inline std::unique_ptr<TestNetwork> network_;
  static inline std::unique_ptr<ExporterProcess> exporter_;
  static inline std::string ns_a_;
  static inline std::string ns_b_;
  static inline VethPair flood_;
  static inline VethPair idle_;
  static inline VethPair backlog_;
};

TEST_F(NapiTest, AFloodIntoAGroVethExhaustsBudgetsOnTheSendersCpu) {
  if (!veth_gro_uses_napi()) GTEST_SKIP() << "veth uses NAPI for GRO since Linux 5.13";
  const unsigned cpu = present_cpus().back();
  const std::string& name = flood_.b.name;
  const Series before = exporter_->scrape();
  const long long rx_before = link_counter(ns_b_, name, "rx_packets");
  ASSERT_GE(rx_before, 0);

  ASSERT_EQ(send_udp_gso_bursts(ns_a_, cpu, flood_.b.address, kBursts, kSegments, kPayloadBytes),
            kBursts);
  const double received = static_cast<double>(link_counter(ns_b_, name, "rx_packets") - rx_before);

  const auto delta = [&](const Series& after, const std::string& metric, unsigned at) {
    return device(after, metric, name, at) - device(before, metric, name, at);
  };
  const Series after = scrape_when([&](const Series& now) {
    return delta(now, "netif_rx_napi_polled_packets_total", cpu) >= received;
  });
  const double polls = delta(after, "netif_rx_napi_polls_total", cpu);
  const double packets = delta(after, "netif_rx_napi_polled_packets_total", cpu);
  const double exhausted = delta(after, "netif_rx_napi_budget_exhausted_total", cpu);
  std::printf(
      "%s on CPU %u: sent %d bursts of %d, received %.0f; polls %.0f, packets polled %.0f, "
      "budget exhausted %.0f\n",
      name.c_str(), cpu, kBursts, kSegments, received, polls, packets, exhausted);

  // Every segment arrived, and every one went through this device's NAPI
  // context (veth puts each in its ring, which only its poll empties).
  EXPECT_EQ(received, kBursts * kSegments);
  EXPECT_EQ(packets, received);
  // A poll takes at most its budget: at least received / 64 polls; a poll
  // that exhausted it took exactly 64.
  EXPECT_GE(polls * kBudget, packets);
  EXPECT_GE(exhausted, 1);
  EXPECT_LE(exhausted, polls);
  EXPECT_LE(exhausted * kBudget, packets);
  // veth schedules its NAPI context on the CPU that transmits: the sender's.
  for (unsigned other : present_cpus()) {
    if (other == cpu) continue;
    EXPECT_EQ(delta(after, "netif_rx_napi_polls_total", other), 0) << "CPU " << other;
  }
  // The new program is among the exporter's own.
  EXPECT_EQ(sum_where(after, "netif_rx_bpf_program_info", {{"program", "netif_rx_napi"}}), 1);
}

TEST_F(NapiTest, AnIdleDeviceHasNoPolls) {
  if (!veth_gro_uses_napi()) GTEST_SKIP() << "veth uses NAPI for GRO since Linux 5.13";
  const unsigned cpu = present_cpus().back();
  // Traffic on the other devices meanwhile.
  ASSERT_EQ(send_udp_gso_bursts(ns_a_, cpu, flood_.b.address, 2, kSegments, kPayloadBytes), 2);
  const Series after = scrape_when([&](const Series& now) {
    return sum_where(now, "netif_rx_napi_polls_total", {{"device", flood_.b.name}}) > 0;
  });
  ASSERT_GT(sum_where(after, "netif_rx_napi_polls_total", {{"device", flood_.b.name}}), 0);
  EXPECT_EQ(link_counter(ns_b_, idle_.b.name, "rx_packets"), 0);
  for (const char* metric : {"netif_rx_napi_polls_total", "netif_rx_napi_polled_packets_total",
                             "netif_rx_napi_budget_exhausted_total"}) {
    EXPECT_EQ(sum_where(after, metric, {{"device", idle_.b.name}}), 0) << metric;
    EXPECT_EQ(sum_where(after, metric, {{"device", idle_.a.name}}), 0) << metric;
  }
}

TEST_F(NapiTest, AFloodIntoAVethWithoutGroIsPolledByTheCpusBacklog) {
  const unsigned cpu = present_cpus().back();
  const std::string& name = backlog_.b.name;
  const Series before = exporter_->scrape();
  const long long rx_before = link_counter(ns_b_, name, "rx_packets");
  ASSERT_GE(rx_before, 0);

  ASSERT_EQ(send_udp_gso_bursts(ns_a_, cpu, backlog_.b.address, kBursts, kSegments, kPayloadBytes),
            kBursts);
  const double received = static_cast<double>(link_counter(ns_b_, name, "rx_packets") - rx_before);

  const auto delta = [&](const Series& after, const std::string& metric) {
    return backlog(after, metric, cpu) - backlog(before, metric, cpu);
  };
  const Series after = scrape_when([&](const Series& now) {
    return delta(now, "netif_rx_backlog_polled_packets_total") >= received;
  });
  const double polls = delta(after, "netif_rx_backlog_polls_total");
  const double packets = delta(after, "netif_rx_backlog_polled_packets_total");
  const double exhausted = delta(after, "netif_rx_backlog_budget_exhausted_total");
  std::printf(
      "backlog of CPU %u: %s received %.0f; polls %.0f, packets polled %.0f, budget "
      "exhausted %.0f\n",
      cpu, name.c_str(), received, polls, packets, exhausted);

  EXPECT_EQ(received, kBursts * kSegments);
  // The backlog is the CPU's, not the device's: other traffic of this
  // machine (loopback) may add to it, never take away.
  EXPECT_GE(packets, received);
  EXPECT_GE(polls * kBudget, packets);
  EXPECT_GE(exhausted, 1);
  EXPECT_LE(exhausted, polls);
  // The device has no NAPI context of its own at work.
  EXPECT_EQ(sum_where(after, "netif_rx_napi_polls_total", {{"device", name}}), 0);
}

}  // namespace
}  // namespace netif_rx::test
