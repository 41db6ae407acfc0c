#include "napi/napi_series.h"

#include <gtest/gtest.h>

#include "metrics/napi_text.h"
#include "napi/napi_reader.h"
#include "probe/fake_bpf_map.h"

namespace netif_rx {
namespace {

NapiEntry entry(std::uint32_t netns, std::uint32_t ifindex,
                std::vector<netif_rx_napi_counters> per_cpu) {
  return {{netns, ifindex, 0}, std::move(per_cpu)};
}

NapiCounts counts() {
  NapiCounts counts;
  counts.backlog_per_cpu = {{0, 0, 0}, {5, 70, 1}};
  counts.untracked_per_cpu = {{1, 2, 0}, {3, 4, 1}};
  counts.entries = {entry(10, 2, {{4, 100, 1}, {0, 0, 0}}),  // eth0: CPU 0 only
                    entry(10, 3, {{0, 0, 0}, {0, 0, 0}}),    // idle
                    entry(10, 4, {{9, 9, 0}, {9, 9, 0}}),    // not of the per-CPU class
                    entry(11, 2, {{1, 64, 1}, {2, 3, 0}})};  // another namespace
  return counts;
}

PerCpuDeviceLabels labels() {
  return {{{10, 2, 0}, "eth0"}, {{10, 3, 0}, "idle"}, {{11, 2, 0}, "b\"ad"}};
}

TEST(NapiSnapshot, KeepsThePerCpuClassWithPollsSortedByName) {
  const NapiSnapshot napi = build_napi_snapshot(counts(), labels(), 1000);
  EXPECT_TRUE(napi.attached);
  ASSERT_EQ(napi.devices.size(), 2U);
  EXPECT_EQ(napi.devices[0].device, "b\"ad");
  EXPECT_EQ(napi.devices[0].netns_inum, 11U);
  EXPECT_EQ(napi.devices[1].device, "eth0");
  EXPECT_EQ(napi.devices[1].per_cpu[0], (NapiPolls{4, 100, 1}));
  EXPECT_EQ(napi.devices[1].per_cpu[1], (NapiPolls{}));
  EXPECT_EQ(napi.backlog_per_cpu[1], (NapiPolls{5, 70, 1}));
  EXPECT_EQ(napi.untracked, (NapiPolls{4, 6, 1}));
  EXPECT_EQ(napi.left_out_devices, 0U);
  // Backlog CPU 1 (3) + untracked (1) + b"ad's two CPUs (6) + eth0's CPU 0 (3).
  EXPECT_EQ(napi.series_count(), 13U);
}

TEST(NapiSnapshot, ADeviceWhoseLinesPassTheBudgetIsLeftOutWhole) {
  // 4 fixed lines, then 6 for b"ad: eth0's 3 do not fit in 12.
  const NapiSnapshot napi = build_napi_snapshot(counts(), labels(), 12);
  ASSERT_EQ(napi.devices.size(), 1U);
  EXPECT_EQ(napi.devices[0].device, "b\"ad");
  EXPECT_EQ(napi.left_out_devices, 1U);
  EXPECT_LE(napi.series_count(), 12U);

  const NapiSnapshot none = build_napi_snapshot(counts(), labels(), 0);
  EXPECT_TRUE(none.devices.empty());
  EXPECT_EQ(none.left_out_devices, 2U);
  EXPECT_EQ(none.backlog_per_cpu[1].polls, 5U);  // the backlog is never left out
}

TEST(NapiText, WritesTheFamiliesByDeviceAndCpu) {
  const NapiSnapshot napi = build_napi_snapshot(counts(), labels(), 1000);
  std::string out;
  write_napi_text(out, napi, RenderOptions{false, true, false});
  EXPECT_NE(out.find("# TYPE netif_rx_napi_polls_total counter\n"), std::string::npos);
  EXPECT_NE(out.find("netif_rx_napi_polls_total{device=\"eth0\",netns=\"10\",cpu=\"0\"} 4\n"),
            std::string::npos);
  EXPECT_NE(
      out.find("netif_rx_napi_polled_packets_total{device=\"eth0\",netns=\"10\",cpu=\"0\"} 100\n"),
      std::string::npos);
  EXPECT_NE(
      out.find("netif_rx_napi_budget_exhausted_total{device=\"eth0\",netns=\"10\",cpu=\"0\"} 1\n"),
      std::string::npos);
  EXPECT_NE(out.find("netif_rx_napi_polls_total{device=\"b\\\"ad\",netns=\"11\",cpu=\"1\"} 2\n"),
            std::string::npos);
  // A CPU that did not poll has no line.
  EXPECT_EQ(out.find("netif_rx_napi_polls_total{device=\"eth0\",netns=\"10\",cpu=\"1\"}"),
            std::string::npos);
  EXPECT_NE(out.find("netif_rx_backlog_polls_total{cpu=\"1\"} 5\n"), std::string::npos);
  EXPECT_NE(out.find("netif_rx_backlog_polled_packets_total{cpu=\"1\"} 70\n"), std::string::npos);
  EXPECT_NE(out.find("netif_rx_backlog_budget_exhausted_total{cpu=\"1\"} 1\n"), std::string::npos);
  EXPECT_EQ(out.find("netif_rx_backlog_polls_total{cpu=\"0\"}"), std::string::npos);
  EXPECT_NE(out.find("netif_rx_napi_untracked_polls_total 4\n"), std::string::npos);

  std::string host;
  write_napi_text(host, napi, RenderOptions{});
  EXPECT_NE(host.find("netif_rx_napi_polls_total{device=\"eth0\",cpu=\"0\"} 4\n"),
            std::string::npos);
}

TEST(NapiText, NothingWithoutTheNapiCounter) {
  std::string out;
  write_napi_text(out, NapiSnapshot{}, RenderOptions{});
  EXPECT_EQ(out, "");
}

TEST(NapiReader, ReadsEntriesAndTotals) {
  auto counters = std::make_unique<test::FakeBpfMap>("napi_counters", sizeof(netif_rx_device_key),
                                                     2 * sizeof(netif_rx_napi_counters));
  auto totals = std::make_unique<test::FakeBpfMap>("napi_totals", sizeof(std::uint32_t),
                                                   2 * sizeof(netif_rx_napi_counters));
  counters->put_array(netif_rx_device_key{10, 2, 0},
                      std::vector<netif_rx_napi_counters>{{4, 100, 1}, {1, 1, 0}});
  totals->put_array(std::uint32_t{NETIF_RX_NAPI_SLOT_BACKLOG},
                    std::vector<netif_rx_napi_counters>{{0, 0, 0}, {5, 70, 1}});
  totals->put_array(std::uint32_t{NETIF_RX_NAPI_SLOT_UNTRACKED},
                    std::vector<netif_rx_napi_counters>{{1, 2, 0}, {0, 0, 0}});

  NapiReader reader(std::move(counters), std::move(totals), 2);
  const NapiCounts read = reader.read();
  EXPECT_TRUE(read.errors.empty());
  ASSERT_EQ(read.entries.size(), 1U);
  EXPECT_EQ(read.entries[0].per_cpu[0].packets, 100U);
  EXPECT_EQ(read.entries[0].per_cpu[1].polls, 1U);
  EXPECT_EQ(read.backlog_per_cpu[1].exhausted, 1U);
  EXPECT_EQ(read.untracked_per_cpu[0].packets, 2U);
}

TEST(NapiReader, AFailedLookupIsAnErrorAndLeavesZeros) {
  auto counters = std::make_unique<test::FakeBpfMap>("napi_counters", sizeof(netif_rx_device_key),
                                                     2 * sizeof(netif_rx_napi_counters));
  auto totals = std::make_unique<test::FakeBpfMap>("napi_totals", sizeof(std::uint32_t),
                                                   2 * sizeof(netif_rx_napi_counters));
  totals->lookup_error = EPERM;
  NapiReader reader(std::move(counters), std::move(totals), 2);
  const NapiCounts read = reader.read();
  ASSERT_EQ(read.errors.size(), 2U);
  EXPECT_EQ(read.errors[0].map, "napi_totals");
  EXPECT_EQ(read.backlog_per_cpu.size(), 2U);
  EXPECT_EQ(read.backlog_per_cpu[1].polls, 0U);
}

}  // namespace
}  // namespace netif_rx
