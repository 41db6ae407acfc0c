#include "drops/softnet_stat.h"

#include <gtest/gtest.h>

#include <string>

namespace netif_rx {
namespace {

TEST(SoftnetStat, ParsesDroppedAndTheCpuColumn) {
  // 6.x: 13 words, the CPU last; CPU 1 offline (its line missing).
  const std::string text =
      "0001e240 00000000 00000003 00000000 00000000 00000000 00000000 00000000 00000000 "
      "00000000 00000000 00000000 00000000\n"
      "00abcdef 000004d8 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
      "00000000 00000000 00000000 00000002\n";
  const auto rows = parse_softnet_stat(text);
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].cpu, 0U);
  EXPECT_EQ(rows[0].dropped, 0U);
  EXPECT_EQ(rows[1].cpu, 2U);
  EXPECT_EQ(rows[1].dropped, 0x4d8U);
}

TEST(SoftnetStat, OlderKernelsCountLines) {
  const auto rows = parse_softnet_stat("00000001 00000002 00000003\n00000004 ffffffff 00000000\n");
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[1].cpu, 1U);
  EXPECT_EQ(rows[1].dropped, 0xffffffffU);
}

TEST(SoftnetStat, HostileTextIsLeftOut) {
  EXPECT_TRUE(parse_softnet_stat("").empty());
  EXPECT_TRUE(parse_softnet_stat("zz 00000001\n").empty());
  EXPECT_TRUE(parse_softnet_stat("00000001\n").empty());
  EXPECT_TRUE(parse_softnet_stat("00000001 1000000000\n").empty());  // more than 32 bits
  EXPECT_TRUE(parse_softnet_stat(std::string(1000, '0') + " 1\n").empty());
  // A CPU column out of range.
  EXPECT_TRUE(parse_softnet_stat("0 1 0 0 0 0 0 0 0 0 0 0 ffffffff\n").empty());
}

TEST(SoftnetBacklogDrops, CountsAcrossTheThirtyTwoBitWrap) {
  SoftnetBacklogDrops drops;
  drops.update({{0, 0xfffffff0U}, {1, 5}});
  EXPECT_EQ(drops.per_cpu(), (std::vector<std::uint64_t>{0xfffffff0ULL, 5}));
  drops.update({{0, 0x10U}, {1, 7}});  // CPU 0 wrapped: 0x20 more
  EXPECT_EQ(drops.per_cpu(), (std::vector<std::uint64_t>{0x100000010ULL, 7}));
  drops.update({{0, 0x10U}, {3, 1}});  // CPU 1 absent (offline) keeps its count
  EXPECT_EQ(drops.per_cpu(), (std::vector<std::uint64_t>{0x100000010ULL, 7, 0, 1}));
}

}  // namespace
}  // namespace netif_rx
