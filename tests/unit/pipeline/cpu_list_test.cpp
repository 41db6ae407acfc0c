#include "pipeline/cpu_list.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <thread>

#include "util/read_file.h"

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

// Read from sysfs itself, not the fallback.
TEST(CpuList, PresentCpusAreTheKernelsList) {
  const auto text = read_file("/sys/devices/system/cpu/present");
  ASSERT_TRUE(text) << "this machine has no /sys/devices/system/cpu/present";
  const auto listed = parse_cpu_list(*text);
  ASSERT_TRUE(listed);
  ASSERT_FALSE(listed->empty());
  EXPECT_EQ(present_cpus(), *listed);
}

TEST(CpuList, FallsBackToTheCpusThatRunThreads) {
  Cpus expected(std::max(1U, std::thread::hardware_concurrency()));
  for (unsigned i = 0; i < expected.size(); ++i) expected[i] = i;
  EXPECT_EQ(present_cpus("/nonexistent/cpu/present"), expected);
  EXPECT_EQ(present_cpus("/proc/self/cmdline"), expected);  // not a CPU list
}

}  // namespace
}  // namespace netif_rx
