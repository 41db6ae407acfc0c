#include "drops/drop_series.h"

#include <gtest/gtest.h>

#include "drops/drop_reader.h"
#include "metrics/drops_text.h"
#include "probe/fake_bpf_map.h"

namespace netif_rx {
namespace {

DropReasonTable reasons() {
  return drop_reason_table({{"SKB_DROP_REASON_NO_SOCKET", 3},
                            {"SKB_DROP_REASON_SOCKET_RCVBUFF", 6},
                            {"SKB_DROP_REASON_CPU_BACKLOG", 71}});
}

DropEntry entry(std::uint32_t netns, std::uint32_t ifindex, std::uint32_t reason,
                std::vector<std::uint64_t> per_cpu) {
  return {{netns, ifindex, 0, reason}, std::move(per_cpu)};
}

DropCounts counts() {
  DropCounts counts;
  counts.counted_per_cpu = {0, 0};
  counts.untracked_per_cpu = {1, 2};
  counts.entries = {entry(10, 2, 3, {4, 5}), entry(10, 2, 71, {0, 7}), entry(10, 3, 3, {0, 0}),
                    entry(11, 2, 6, {1, 0}), entry(11, 9, 71, {2, 0})};
  counts.names[{10, 2, 0}] = "eth0";
  counts.names[{10, 3, 0}] = "idle";
  counts.names[{11, 2, 0}] = std::string("b\"ad\n\xff", 6);
  return counts;
}

TEST(DropsSnapshot, SumsOverCpusNamesAndLeavesZerosOut) {
  const DropsSnapshot drops = build_drops_snapshot(counts(), reasons(), 1000);
  ASSERT_EQ(drops.series.size(), 4U);
  // Sorted by device, netns, reason; the hostile name made a label value.
  EXPECT_EQ(drops.series[0].device, "(ifindex 9)");
  EXPECT_EQ(drops.series[0].reason, "CPU_BACKLOG");
  EXPECT_EQ(drops.series[0].packets, 2U);
  EXPECT_EQ(drops.series[1].device,
            "b\"ad\n\xEF\xBF\xBD"
            "ff");
  EXPECT_EQ(drops.series[1].reason, "SOCKET_RCVBUFF");
  EXPECT_EQ(drops.series[2].device, "eth0");
  EXPECT_EQ(drops.series[2].reason, "CPU_BACKLOG");
  EXPECT_EQ(drops.series[2].packets, 7U);
  EXPECT_EQ(drops.series[3].reason, "NO_SOCKET");
  EXPECT_EQ(drops.series[3].packets, 9U);
  EXPECT_EQ(drops.backlog_per_cpu, (std::vector<std::uint64_t>{2, 7}));
  EXPECT_EQ(drops.untracked, 3U);
  EXPECT_TRUE(drops.folded.empty());
  EXPECT_EQ(drops.series_count(), 4U + 2U + 1U);  // and the untracked drops
}

TEST(DropsSnapshot, DevicesPastTheBudgetFoldWholeIntoOneSeriesPerReason) {
  DropCounts more = counts();
  more.entries.push_back(entry(12, 4, 3, {1, 1}));
  more.names[{12, 4, 0}] = "zz";
  // 5 series, 2 backlog CPUs and the untracked drops: past 7, so room is
  // kept for one folded series per reason (3), which leaves 1.
  const DropsSnapshot drops = build_drops_snapshot(more, reasons(), 1 + 2 + 3 + 1);
  ASSERT_EQ(drops.series.size(), 1U);
  EXPECT_EQ(drops.series[0].device, "(ifindex 9)");
  EXPECT_EQ(drops.folded_devices, 3U);
  ASSERT_EQ(drops.folded.size(), 3U);
  EXPECT_EQ(drops.folded[0].reason, "CPU_BACKLOG");
  EXPECT_EQ(drops.folded[0].packets, 7U);
  EXPECT_EQ(drops.folded[1].reason, "NO_SOCKET");
  EXPECT_EQ(drops.folded[1].packets, 9U + 2U);
  EXPECT_EQ(drops.folded[2].reason, "SOCKET_RCVBUFF");
  EXPECT_EQ(drops.folded[2].packets, 1U);
  EXPECT_LE(drops.series_count(), 7U);
  // Totals stay exact.
  std::uint64_t sum = 0;
  for (const auto& series : drops.series) sum += series.packets;
  for (const auto& folded : drops.folded) sum += folded.packets;
  EXPECT_EQ(sum, 2U + 1U + 7U + 9U + 2U);
}

TEST(DropsSnapshot, NoBudgetFoldsEveryDevice) {
  const DropsSnapshot drops = build_drops_snapshot(counts(), reasons(), 0);
  EXPECT_TRUE(drops.series.empty());
  EXPECT_EQ(drops.folded_devices, 3U);
}

TEST(DropsSnapshot, DevicesTheFiltersLeaveOutHaveNoSeriesTheirBacklogDropsStay) {
  const DropsSnapshot drops = build_drops_snapshot(
      counts(), reasons(), 1000, [](std::string_view name) { return name != "eth0"; });
  for (const DropSeries& series : drops.series) EXPECT_NE(series.device, "eth0");
  EXPECT_EQ(drops.series.size(), 2U);
  EXPECT_EQ(drops.backlog_per_cpu, (std::vector<std::uint64_t>{2, 7}));
}

TEST(DropsSnapshot, ADeviceMadeAgainUnderItsNameAddsToItsSeries) {
  DropCounts counts;
  counts.counted_per_cpu = {0};
  counts.untracked_per_cpu = {0};
  // eth0 at ifindex 2, deleted; eth0 again at ifindex 5; and a reused
  // inode's eth0 (another salt).
  counts.entries = {entry(10, 2, 3, {4}), entry(10, 5, 3, {6}), {{10, 2, 99, 3}, {1}}};
  counts.names[{10, 2, 0}] = "eth0";
  counts.names[{10, 5, 0}] = "eth0";
  counts.names[{10, 2, 99}] = "eth0";
  const DropsSnapshot drops = build_drops_snapshot(counts, reasons(), 1000);
  ASSERT_EQ(drops.series.size(), 1U);
  EXPECT_EQ(drops.series[0].packets, 11U);
}

TEST(DropsText, WritesTheThreeFamiliesWithEscapedLabels) {
  const DropsSnapshot drops = build_drops_snapshot(counts(), reasons(), 1000);
  std::string out;
  write_drops_text(out, drops, RenderOptions{false, true, false});
  EXPECT_NE(out.find("# TYPE netif_rx_drops_total counter\n"), std::string::npos);
  EXPECT_NE(out.find("netif_rx_drops_total{device=\"eth0\",netns=\"10\",reason=\"NO_SOCKET\"} 9\n"),
            std::string::npos);
  EXPECT_NE(out.find("netif_rx_drops_total{device=\"b\\\"ad\\n\xEF\xBF\xBD"
                     "ff\",netns=\"11\","
                     "reason=\"SOCKET_RCVBUFF\"} 1\n"),
            std::string::npos);
  EXPECT_NE(out.find("netif_rx_backlog_drops_total{cpu=\"0\"} 2\n"), std::string::npos);
  EXPECT_NE(out.find("netif_rx_backlog_drops_total{cpu=\"1\"} 7\n"), std::string::npos);
  EXPECT_NE(out.find("netif_rx_untracked_drops_total 3\n"), std::string::npos);

  std::string host;
  write_drops_text(host, drops, RenderOptions{});
  EXPECT_NE(host.find("netif_rx_drops_total{device=\"eth0\",reason=\"NO_SOCKET\"} 9\n"),
            std::string::npos);
}

TEST(DropsText, NothingWithoutTheDropCounter) {
  std::string out;
  write_drops_text(out, DropsSnapshot{}, RenderOptions{});
  EXPECT_EQ(out, "");
}

TEST(DropReader, ReadsEntriesNamesAndTotals) {
  auto counters = std::make_unique<test::FakeBpfMap>("drop_counters", sizeof(netif_rx_drop_key),
                                                     2 * sizeof(std::uint64_t));
  auto names = std::make_unique<test::FakeBpfMap>("drop_device_names", sizeof(netif_rx_device_key),
                                                  sizeof(netif_rx_device_name));
  auto totals = std::make_unique<test::FakeBpfMap>("drop_totals", sizeof(std::uint32_t),
                                                   2 * sizeof(std::uint64_t));
  counters->put_array(netif_rx_drop_key{10, 2, 0, 3}, std::vector<std::uint64_t>{4, 5});
  netif_rx_device_name name{};
  std::memcpy(name.name, "eth0", 4);
  names->put(netif_rx_device_key{10, 2, 0}, name);
  totals->put_array(std::uint32_t{NETIF_RX_DROP_SLOT_COUNTED}, std::vector<std::uint64_t>{4, 5});
  totals->put_array(std::uint32_t{NETIF_RX_DROP_SLOT_UNTRACKED}, std::vector<std::uint64_t>{0, 1});

  DropReader reader(std::move(counters), std::move(names), std::move(totals), 2);
  const DropCounts read = reader.read();
  EXPECT_TRUE(read.errors.empty());
  ASSERT_EQ(read.entries.size(), 1U);
  EXPECT_EQ(read.entries[0].per_cpu, (std::vector<std::uint64_t>{4, 5}));
  ASSERT_EQ(read.names.size(), 1U);
  EXPECT_EQ(read.names.begin()->second, "eth0");
  EXPECT_EQ(read.untracked_per_cpu, (std::vector<std::uint64_t>{0, 1}));
}

}  // namespace
}  // namespace netif_rx
