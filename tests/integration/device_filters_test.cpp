// What is exported: devices.include / devices.exclude, per_cpu: false, a full
// device map, and device names that need escaping. Each exporter runs in a
// namespace of the test's own (see device_lifecycle_test.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "command.h"
#include "exporter_process.h"
#include "lifecycle_support.h"
#include "pipeline/cpu_list.h"
#include "series_query.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

constexpr int kPayloadBytes = 100;
const std::string kPackets = "netif_rx_packets_total";
const std::string kBytes = "netif_rx_bytes_total";
const std::string kUntracked = "netif_rx_untracked_packets_total";

std::string test_prefix(char test) {
  return "nrx" + std::to_string(::getpid() % 100000) + std::string(1, test);
}

std::unique_ptr<ExporterProcess> start_exporter(const std::string& netns,
                                                const std::string& config) {
  auto exporter = std::make_unique<ExporterProcess>(config, std::vector<std::string>{}, netns);
  EXPECT_TRUE(exporter->wait_ready()) << "the exporter did not become ready; its log:\n"
                                      << exporter->log();
  return exporter;
}

class DeviceFiltersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
  }
};

TEST_F(DeviceFiltersTest, IncludeExcludeAndPerCpuOff) {
  TestNetwork network(test_prefix('f'));
  const std::string host = network.add_namespace("h");
  const std::string peer = network.add_namespace("a");
  const std::string p = network.prefix();
  const VethPair fa = network.add_veth_pair("fa", host, "pa", peer, 0);
  const VethPair fb = network.add_veth_pair("fb", host, "pb", peer, 1);
  const VethPair fx = network.add_veth_pair("fx", host, "px", peer, 2);

  const std::string base = "poll_interval: 100ms\n";
  auto include_only = start_exporter(host, base + "devices:\n  include: ['" + p + "f.*']\n");
  auto exclude_only = start_exporter(host, base + "devices:\n  exclude: ['" + p + "fx', 'lo']\n");
  auto both = start_exporter(host, base + "per_cpu: false\ndevices:\n  include: ['" + p +
                                       "f.*', 'l.']\n  exclude: ['" + p + "fx', 'lo']\n");

  const unsigned second_cpu = 1 % present_cpus().size();
  ASSERT_EQ(send_udp(peer, 0, fa.a.address, 100, kPayloadBytes), 100);
  ASSERT_EQ(send_udp(peer, second_cpu, fa.a.address, 250, kPayloadBytes), 250);
  ASSERT_EQ(send_udp(peer, 0, fb.a.address, 60, kPayloadBytes), 60);
  ASSERT_EQ(send_udp(peer, 0, fx.a.address, 30, kPayloadBytes), 30);
  // Loopback traffic in the exporter's namespace, so that lo has a series
  // to filter out.
  ASSERT_EQ(send_udp(host, 0, "127.0.0.1", 5, kPayloadBytes), 5);

  const auto all_counted = [&](const Series& s) {
    return sum_where(s, kPackets, {{"device", fa.a.name}}) >= 350 &&
           sum_where(s, kPackets, {{"device", fb.a.name}}) >= 60;
  };
  const Series included = scrape_until(*include_only, [&](const Series& s) {
    return all_counted(s) && sum_where(s, kPackets, {{"device", fx.a.name}}) >= 30;
  });
  EXPECT_EQ(devices_of(included), (std::set<std::string>{fa.a.name, fb.a.name, fx.a.name}));

  const Series excluded = scrape_until(*exclude_only, all_counted);
  EXPECT_EQ(devices_of(excluded), (std::set<std::string>{fa.a.name, fb.a.name}));

  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const Series summed = scrape_until(*both, all_counted);
  EXPECT_EQ(devices_of(summed), (std::set<std::string>{fa.a.name, fb.a.name}));
  // per_cpu: false: one series per device, no cpu label, exact sums.
  for (const auto& [key, value] : summed) {
    const std::string metric = metric_of(key);
    if (metric == kPackets || metric == kBytes || metric == kUntracked) {
      EXPECT_EQ(labels_of(key).count("cpu"), 0U) << key;
    }
  }
  EXPECT_EQ(count_where(summed, kPackets, {{"device", fa.a.name}}), 1);
  EXPECT_EQ(summed.at(series_key(kPackets, {{"device", fa.a.name}})), 350);
  EXPECT_EQ(summed.at(series_key(kBytes, {{"device", fa.a.name}})),
            350.0 * udp_skb_len(kPayloadBytes));
  EXPECT_EQ(summed.at(series_key(kPackets, {{"device", fb.a.name}})), 60);
  EXPECT_EQ(summed.at(kUntracked), 0);
  EXPECT_EQ(poll_errors(summed), 0);
}

TEST_F(DeviceFiltersTest, FullMapCountsUntrackedAndWarnsOnce) {
  TestNetwork network(test_prefix('m'));
  const std::string host = network.add_namespace("h");
  const std::string peer = network.add_namespace("a");
  const VethPair first = network.add_veth_pair("a", host, "pa", peer, 0);
  const VethPair second = network.add_veth_pair("b", host, "pb", peer, 1);
  const VethPair third = network.add_veth_pair("c", host, "pc", peer, 2);
  // max_devices 2: the own-namespace array has slots 0 and 1 (lo, which
  // carries the scrapes); the devices (ifindex 2 and up) take the hash's two
  // entries, the first two devices.
  auto exporter = start_exporter(host, "poll_interval: 100ms\nmax_devices: 2\n");

  ASSERT_EQ(send_udp(peer, 0, first.a.address, 100, kPayloadBytes), 100);
  ASSERT_EQ(send_udp(peer, 0, second.a.address, 100, kPayloadBytes), 100);
  for (int burst = 0; burst < 3; ++burst) {
    ASSERT_EQ(send_udp(peer, 0, third.a.address, 100, kPayloadBytes), 100);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // a few polls
  }
  const Series series =
      scrape_until(*exporter, [&](const Series& s) { return sum_where(s, kUntracked, {}) >= 300; });
  EXPECT_EQ(sum_where(series, kUntracked, {}), 300);
  EXPECT_EQ(sum_where(series, kPackets, {{"device", first.a.name}}), 100);
  EXPECT_EQ(sum_where(series, kPackets, {{"device", second.a.name}}), 100);
  EXPECT_EQ(devices_of(series).count(third.a.name), 0U);

  // One warning, however many polls saw the map full (at most one a minute).
  const std::string log = exporter->log();
  std::size_t warnings = 0;
  for (auto at = log.find("device map is full"); at != std::string::npos;
       at = log.find("device map is full", at + 1)) {
    ++warnings;
  }
  EXPECT_EQ(warnings, 1U) << log;
  EXPECT_NE(log.find("max_devices=2"), std::string::npos) << log;
}

TEST_F(DeviceFiltersTest, NamesThatNeedEscapingAreValidExposition) {
  TestNetwork network(test_prefix('e'));
  const std::string host = network.add_namespace("h");
  const std::string peer = network.add_namespace("a");
  // A quote, a backslash, UTF-8 (é) and a byte that is not UTF-8: all allowed
  // in an interface name.
  const VethPair pair = network.add_veth_pair("\"\\\xC3\xA9\xFF", host, "p", peer, 0);
  ASSERT_GT(network.ifindex(host, pair.a.name), 0);
  auto exporter = start_exporter(host, "poll_interval: 100ms\n");
  ASSERT_EQ(send_udp(peer, 0, pair.a.address, 42, kPayloadBytes), 42);

  // The label value: quote and backslash escaped, the stray byte replaced by
  // U+FFFD and its hex digits.
  const std::string label = "device=\"" + network.prefix() +
                            "\\\"\\\\\xC3\xA9\xEF\xBF\xBD"
                            "ff\"";
  std::string body;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    body = exporter->get("/metrics").body;
    if (body.find(label) != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_NE(body.find(label), std::string::npos) << body;

  const std::string path = std::filesystem::temp_directory_path() /
                           ("netif_rx_escape_" + std::to_string(::getpid()) + ".txt");
  std::ofstream(path, std::ios::binary) << body;
  const CommandResult lint = run_command({"sh", "-c", "promtool check metrics < '" + path + "'"});
  std::filesystem::remove(path);
  EXPECT_EQ(lint.exit_code, 0) << lint.output;
}

}  // namespace
}  // namespace netif_rx::test
