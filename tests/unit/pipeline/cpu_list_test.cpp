#include "pipeline/cpu_list.h"

#include <gtest/gtest.h>

#include <limits>

namespace netif_rx {
namespace {

using Cpus = std::vector<unsigned>;

TEST(CpuList, ParsesTheSysfsFormat) {
  EXPECT_EQ(parse_cpu_list("0"), Cpus{0});
  EXPECT_EQ(parse_cpu_list("0-3"), (Cpus{0, 1, 2, 3}));
  EXPECT_EQ(parse_cpu_list("0-1,4,6-7"), (Cpus{0, 1, 4, 6, 7}));
  EXPECT_EQ(parse_cpu_list("5-5"), Cpus{5});
  EXPECT_EQ(parse_cpu_list("0,2,4"), (Cpus{0, 2, 4}));
}

TEST(CpuList, IgnoresTheTrailingNewline) {
  EXPECT_EQ(parse_cpu_list("0-3\n"), (Cpus{0, 1, 2, 3}));
  EXPECT_EQ(parse_cpu_list("0,2\n"), (Cpus{0, 2}));
}

// An empty list is valid in sysfs (e.g. /sys/devices/system/cpu/offline).
TEST(CpuList, EmptyIsNoCpus) {
  EXPECT_EQ(parse_cpu_list(""), Cpus{});
  EXPECT_EQ(parse_cpu_list("\n"), Cpus{});
}

TEST(CpuList, RejectsMalformedLists) {
  for (const char* text : {"1-", "-1", "a", "3-1", "0,", ",0", "0,,1", "1-2-3", "0--1", " 0",
                           "0 ,1", "0-a", "+1", "0x1", "1.0", "99999999999"}) {
    EXPECT_EQ(parse_cpu_list(text), std::nullopt) << "'" << text << "'";
  }
}

TEST(CpuList, RejectsAnImplausiblyLongRange) {
  EXPECT_EQ(parse_cpu_list("0-4000000000"), std::nullopt);
}

TEST(CpuList, ParsesTheLargestNumber) {
  constexpr unsigned kMax = std::numeric_limits<unsigned>::max();
  EXPECT_EQ(parse_cpu_list("4294967295"), Cpus{kMax});
  EXPECT_EQ(parse_cpu_list("4294967294-4294967295"), (Cpus{kMax - 1, kMax}));
}

TEST(CpuList, PresentCpusAreNotEmptyAndSorted) {
  const Cpus cpus = present_cpus();
  ASSERT_FALSE(cpus.empty());
  for (std::size_t i = 1; i < cpus.size(); ++i) EXPECT_LT(cpus[i - 1], cpus[i]);
}

}  // namespace
}  // namespace netif_rx
