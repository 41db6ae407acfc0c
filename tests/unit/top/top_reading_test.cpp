#include "top/top_reading.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "error_text.h"

namespace netif_rx {
namespace {

std::string data_file(const std::string& name) {
  std::ifstream in(std::string(NETIF_RX_TEST_DATA_DIR) + "/" + name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string error_of(std::string_view text) {
  return test::error_text<ExpositionParseError>([&] { reading_from_exposition(text); });
}

TEST(TopReading, FromPerCpuMetrics) {
  // The exposition golden file: what the exporter itself serves.
  const TopReading reading = reading_from_exposition(data_file("per_cpu.prom"));
  EXPECT_TRUE(reading.per_cpu);
  EXPECT_EQ(reading.cpus, (std::vector<unsigned>{0, 1}));
  ASSERT_EQ(reading.devices.size(), 2U);
  const TopCpuCounters& eth0 = reading.devices.at({"eth0", ""});
  EXPECT_EQ(eth0.at(0), (TopCounters{45, 65160}));  // 10 skbs carried 45 packets
  EXPECT_EQ(eth0.at(1), (TopCounters{3, 180}));
  // The escaped name comes back as the device's own.
  const TopCpuCounters& weird = reading.devices.at({"we\"ird\\dev", ""});
  EXPECT_EQ(weird.at(1), (TopCounters{123456789012345, 9007199254740992}));
  EXPECT_EQ(reading.polled_at, std::nullopt);
}

TEST(TopReading, FromMetricsWithNetns) {
  const TopReading reading = reading_from_exposition(data_file("netns.prom"));
  ASSERT_EQ(reading.devices.size(), 3U);
  EXPECT_EQ(reading.devices.at({"eth0", "4026531840"}).at(1), (TopCounters{2, 200}));
  EXPECT_EQ(reading.devices.at({"eth0", "4026532281"}).at(0), (TopCounters{3, 300}));
  EXPECT_EQ(reading.devices.at({"lo", "4026531840"}).at(1), (TopCounters{6, 600}));
}

TEST(TopReading, FromMetricsSummedOverCpus) {
  // per_cpu: false in the exporter's configuration: no cpu label.
  const TopReading reading = reading_from_exposition(data_file("summed.prom"));
  EXPECT_FALSE(reading.per_cpu);
  EXPECT_TRUE(reading.cpus.empty());
  EXPECT_EQ(reading.devices.at({"eth0", ""}).at(std::nullopt), (TopCounters{48, 65340}));
  EXPECT_EQ(reading.devices.at({"we\"ird\\dev", ""}).at(std::nullopt).packets, 123456789012345U);
}

TEST(TopReading, FromMetricsWithoutDevicesYet) {
  // The totals come summed (per_cpu.devices: physical): no CPU to show.
  const TopReading reading = reading_from_exposition(data_file("no_devices.prom"));
  EXPECT_FALSE(reading.per_cpu);
  EXPECT_TRUE(reading.cpus.empty());
  EXPECT_TRUE(reading.devices.empty());
}

TEST(TopReading, FromMetricsWithDevicesByCpuAndSummed) {
  // per_cpu.devices: physical: eth0 by CPU, veth0 summed.
  const TopReading reading = reading_from_exposition(
      "netif_rx_packets_total{cpu=\"1\",device=\"eth0\"} 5\n"
      "netif_rx_packets_total{cpu=\"3\",device=\"eth0\"} 7\n"
      "netif_rx_packets_total{device=\"veth0\"} 9\n"
      "netif_rx_untracked_packets_total 0\n");
  EXPECT_TRUE(reading.per_cpu);
  EXPECT_EQ(reading.cpus, (std::vector<unsigned>{1, 3}));
  EXPECT_EQ(reading.devices.at({"eth0", ""}).at(3).packets, 7U);
  EXPECT_EQ(reading.devices.at({"veth0", ""}).at(std::nullopt).packets, 9U);
  EXPECT_THROW(reading_from_exposition("netif_rx_packets_total{cpu=\"1\",device=\"eth0\"} 5\n"
                                       "netif_rx_packets_total{device=\"eth0\"} 9\n"),
               ExpositionParseError);
}

TEST(TopReading, TakesThePollTimeAndIgnoresOtherFamilies) {
  const TopReading reading = reading_from_exposition(
      "netif_rx_exporter_last_poll_timestamp_seconds 1.7e+09\n"
      "process_open_fds 12\n"
      "netif_rx_bpf_run_count_total{program=\"netif_rx_btf\"} 99\n"
      "netif_rx_packets_total{cpu=\"3\",device=\"eth0\"} 5\n");
  EXPECT_EQ(reading.polled_at, 1.7e9);
  EXPECT_EQ(reading.cpus, (std::vector<unsigned>{3}));
  EXPECT_EQ(reading.devices.at({"eth0", ""}).at(3), (TopCounters{5, 0}));
}

TEST(TopReading, RejectsWhatIsNotTheExporters) {
  EXPECT_EQ(error_of("node_load1 0.5\n"),
            "no netif_rx_packets_total or netif_rx_untracked_packets_total series: is this a "
            "netif_rx_exporter's metrics page?");
  EXPECT_EQ(error_of("netif_rx_packets_total{cpu=\"0\"} 1\n"),
            "netif_rx_packets_total{cpu=\"0\"}: the device label is missing");
  EXPECT_EQ(error_of("netif_rx_packets_total{cpu=\"x\",device=\"a\"} 1\n"),
            "netif_rx_packets_total{cpu=\"x\",device=\"a\"}: cpu 'x' is not a CPU number");
  EXPECT_EQ(error_of("netif_rx_packets_total{device=\"a\"} -1\n"),
            "netif_rx_packets_total{device=\"a\"}: -1.000000 is not a counter value");
  EXPECT_EQ(error_of("netif_rx_packets_total{device=\"a\"} 1\n"
                     "netif_rx_packets_total{cpu=\"0\",device=\"a\"} 1\n"),
            "the series of device 'a' mix samples with and without the cpu label");
}

TEST(TopReading, FromSnapshot) {
  Snapshot snapshot;
  snapshot.cpus = {0, 2};  // CPU 1 left (possible, not present), CPU 3 never counted
  // skbs, merged packets, bytes: top shows packets (skbs + merged).
  snapshot.devices.push_back(
      {{4026531840, 2, 0}, "eth0", {{1, 0, 100}, {9, 0, 900}, {2, 3, 200}, {}}});
  snapshot.devices.push_back(
      {{4026532281, 5, 0}, "veth0", {{4, 0, 400}, {0, 0, 0}, {0, 0, 0}, {}}});

  const TopReading host = reading_from_snapshot(snapshot, false);
  EXPECT_TRUE(host.per_cpu);
  // The present CPUs and the one that left, whose counts are still there.
  EXPECT_EQ(host.cpus, (std::vector<unsigned>{0, 1, 2}));
  const TopCpuCounters& eth0 = host.devices.at({"eth0", ""});
  EXPECT_EQ(eth0.size(), 3U);
  EXPECT_EQ(eth0.at(0), (TopCounters{1, 100}));
  EXPECT_EQ(eth0.at(1), (TopCounters{9, 900}));
  EXPECT_EQ(eth0.at(2), (TopCounters{5, 200}));
  EXPECT_FALSE(eth0.count(3));

  const TopReading all = reading_from_snapshot(snapshot, true);
  EXPECT_EQ(all.devices.at({"veth0", "4026532281"}).at(0), (TopCounters{4, 400}));
  EXPECT_TRUE(all.devices.count({"eth0", "4026531840"}));
}

}  // namespace
}  // namespace netif_rx
