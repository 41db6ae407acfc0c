#include "top/top_rate_table.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

using std::chrono::milliseconds;

TopReading reading(std::chrono::steady_clock::time_point taken,
                   std::map<TopDeviceId, TopCpuCounters> devices) {
  TopReading out;
  out.cpus = {0, 1, 2};
  out.devices = std::move(devices);
  out.taken = taken;
  return out;
}

const std::chrono::steady_clock::time_point kStart{std::chrono::seconds(1000)};

TEST(RateTable, DifferencesPerDeviceAndCpuBusiestFirst) {
  const TopReading before = reading(kStart, {
                                                {{"eth0", ""}, {{0, {10, 1000}}, {1, {5, 500}}}},
                                                {{"eth1", ""}, {{0, {1, 100}}}},
                                                {{"lo", ""}, {{2, {7, 70}}}},
                                            });
  const TopReading after =
      reading(kStart + milliseconds(2000), {
                                               {{"eth0", ""}, {{0, {30, 3000}}, {1, {5, 500}}}},
                                               {{"eth1", ""}, {{0, {101, 10100}}, {2, {4, 40}}}},
                                               {{"lo", ""}, {{2, {7, 70}}}},
                                           });
  const RateTable table = compute_rate_table(before, after);
  EXPECT_DOUBLE_EQ(table.span_seconds, 2.0);
  EXPECT_TRUE(table.per_cpu);
  ASSERT_EQ(table.devices.size(), 3U);

  EXPECT_EQ(table.devices[0].id.name, "eth1");
  EXPECT_EQ(table.devices[0].delta, (TopCounters{104, 10040}));
  ASSERT_EQ(table.devices[0].cpus.size(), 3U);
  EXPECT_EQ(table.devices[0].cpus[0].cpu, 0U);
  EXPECT_EQ(table.devices[0].cpus[0].delta, (TopCounters{100, 10000}));
  EXPECT_EQ(table.devices[0].cpus[0].total, (TopCounters{101, 10100}));
  EXPECT_EQ(table.devices[0].cpus[1].delta, (TopCounters{0, 0}));   // no series: zero
  EXPECT_EQ(table.devices[0].cpus[2].delta, (TopCounters{4, 40}));  // new series: from zero

  EXPECT_EQ(table.devices[1].id.name, "eth0");
  EXPECT_EQ(table.devices[1].delta, (TopCounters{20, 2000}));
  EXPECT_EQ(table.devices[1].cpus[0].delta, (TopCounters{20, 2000}));
  EXPECT_EQ(table.devices[1].cpus[1].delta, (TopCounters{0, 0}));

  EXPECT_EQ(table.devices[2].id.name, "lo");
  EXPECT_EQ(table.devices[2].delta, (TopCounters{0, 0}));
  EXPECT_DOUBLE_EQ(per_second(table.devices[0].delta.packets, table.span_seconds), 52.0);
}

TEST(RateTable, TiesSortByBytesThenNameThenNetns) {
  const TopReading before = reading(kStart, {});
  const TopReading after = reading(kStart + milliseconds(1000), {
                                                                    {{"b", ""}, {{0, {5, 50}}}},
                                                                    {{"a", "2"}, {{0, {5, 50}}}},
                                                                    {{"a", "1"}, {{0, {5, 50}}}},
                                                                    {{"z", ""}, {{0, {5, 60}}}},
                                                                });
  const RateTable table = compute_rate_table(before, after);
  std::vector<std::string> order;
  for (const auto& device : table.devices) order.push_back(device.id.name + device.id.netns);
  EXPECT_EQ(order, (std::vector<std::string>{"z", "a1", "a2", "b"}));
}

TEST(RateTable, NewDeviceCountsFromZeroAndGoneDeviceIsLeftOut) {
  const TopReading before = reading(kStart, {{{"gone", ""}, {{0, {9, 90}}}}});
  const TopReading after = reading(kStart + milliseconds(500), {{{"new", ""}, {{1, {3, 30}}}}});
  const RateTable table = compute_rate_table(before, after);
  ASSERT_EQ(table.devices.size(), 1U);
  EXPECT_EQ(table.devices[0].id.name, "new");
  EXPECT_EQ(table.devices[0].delta, (TopCounters{3, 30}));
  EXPECT_DOUBLE_EQ(per_second(3, table.span_seconds), 6.0);
}

TEST(RateTable, ACounterThatWentDownCountsFromZero) {
  const TopReading before = reading(kStart, {{{"eth0", ""}, {{0, {1000, 100000}}}}});
  const TopReading after = reading(kStart + milliseconds(1000), {{{"eth0", ""}, {{0, {7, 700}}}}});
  EXPECT_EQ(compute_rate_table(before, after).devices[0].delta, (TopCounters{7, 700}));
}

TEST(RateTable, SummedOverCpus) {
  TopReading before = reading(kStart, {{{"eth0", ""}, {{std::nullopt, {10, 100}}}}});
  TopReading after =
      reading(kStart + milliseconds(1000), {{{"eth0", ""}, {{std::nullopt, {15, 150}}}}});
  before.per_cpu = after.per_cpu = false;
  before.cpus = after.cpus = {};
  const RateTable table = compute_rate_table(before, after);
  EXPECT_FALSE(table.per_cpu);
  ASSERT_EQ(table.devices[0].cpus.size(), 1U);
  EXPECT_EQ(table.devices[0].cpus[0].cpu, std::nullopt);
  EXPECT_EQ(table.devices[0].cpus[0].delta, (TopCounters{5, 50}));
}

TEST(RateTable, SpanPrefersTheExportersPollTimes) {
  TopReading before = reading(kStart, {});
  TopReading after = reading(kStart + milliseconds(1100), {});
  EXPECT_DOUBLE_EQ(span_seconds(before, after), 1.1);
  before.polled_at = 1700000000.0;
  after.polled_at = 1700000001.0;
  EXPECT_DOUBLE_EQ(span_seconds(before, after), 1.0);
  after.polled_at = before.polled_at;  // no poll in between: the local clock
  EXPECT_DOUBLE_EQ(span_seconds(before, after), 1.1);
  EXPECT_DOUBLE_EQ(span_seconds(after, before), 0.0);
  EXPECT_DOUBLE_EQ(per_second(10, 0.0), 0.0);
}

}  // namespace
}  // namespace netif_rx

namespace netif_rx {
namespace {

// Drops by reason from a scrape: the increase over the span, most first; a
// reason that did not drop is left out; a counter that went down counts from
// zero.
TEST(TopRateTableDrops, IncreaseByReasonMostFirst) {
  const std::string page_before =
      "netif_rx_untracked_packets_total 0\n"
      "netif_rx_packets_total{device=\"veth1\"} 100\n"
      "netif_rx_drops_total{device=\"veth1\",reason=\"NO_SOCKET\"} 10\n"
      "netif_rx_drops_total{device=\"veth1\",reason=\"SOCKET_RCVBUFF\"} 5\n"
      "netif_rx_drops_total{device=\"veth1\",reason=\"NETFILTER_DROP\"} 50\n";
  const std::string page_after =
      "netif_rx_untracked_packets_total 0\n"
      "netif_rx_packets_total{device=\"veth1\"} 160\n"
      "netif_rx_drops_total{device=\"veth1\",reason=\"NO_SOCKET\"} 50\n"
      "netif_rx_drops_total{device=\"veth1\",reason=\"SOCKET_RCVBUFF\"} 5\n"
      "netif_rx_drops_total{device=\"veth1\",reason=\"NETFILTER_DROP\"} 3\n";
  const RateTable table =
      compute_rate_table(reading_from_exposition(page_before), reading_from_exposition(page_after));
  ASSERT_EQ(table.devices.size(), 1U);
  const auto& drops = table.devices[0].drops;
  ASSERT_EQ(drops.size(), 2U);
  EXPECT_EQ(drops[0].reason, "NO_SOCKET");
  EXPECT_EQ(drops[0].delta, 40U);
  EXPECT_EQ(drops[1].reason, "NETFILTER_DROP");  // went down: from zero
  EXPECT_EQ(drops[1].delta, 3U);
  EXPECT_EQ(table.devices[0].dropped(), 43U);
}

}  // namespace
}  // namespace netif_rx
