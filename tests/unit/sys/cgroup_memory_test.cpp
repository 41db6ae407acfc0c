#include "sys/cgroup_memory.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace netif_rx {
namespace {

namespace fs = std::filesystem;

// A cgroup file system tree of its own, removed at the end.
class CgroupTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cgroup_memory_test." + std::to_string(::getpid()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& relative, const std::string& text) {
    const fs::path file = root_ / relative;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
  }
  std::string root() const { return root_.string(); }

  fs::path root_;
};

TEST_F(CgroupTree, V2TakesTheLeastLimitOfTheCgroupAndItsAncestors) {
  write("memory.max", "max\n");
  write("kubepods/memory.max", "1073741824\n");
  write("kubepods/pod1/memory.max", "268435456\n");
  write("kubepods/pod1/exporter/memory.max", "max\n");
  const auto limit = cgroup_memory_limit("0::/kubepods/pod1/exporter\n", root());
  ASSERT_TRUE(limit.has_value());
  EXPECT_EQ(limit->bytes, 268435456U);
  EXPECT_EQ(limit->file, root() + "/kubepods/pod1/memory.max");
}

TEST_F(CgroupTree, V2InACgroupNamespaceReadsTheRoot) {
  write("memory.max", "67108864\n");
  const auto limit = cgroup_memory_limit("0::/\n", root());
  ASSERT_TRUE(limit.has_value());
  EXPECT_EQ(limit->bytes, 67108864U);
}

TEST_F(CgroupTree, NoLimitAnywhereIsNone) {
  write("system.slice/memory.max", "max\n");
  write("memory/system.slice/memory.limit_in_bytes", "9223372036854771712\n");
  EXPECT_FALSE(cgroup_memory_limit("0::/system.slice\n", root()).has_value());
  EXPECT_FALSE(cgroup_memory_limit("4:memory:/system.slice\n0::/\n", root()).has_value());
}

TEST_F(CgroupTree, V1MemoryControllerWinsOverTheUnifiedHierarchy) {
  write("memory/docker/abc/memory.limit_in_bytes", "134217728\n");
  write("memory.max", "1048576\n");  // a v2 file the hybrid's memory limit is not in
  const auto limit =
      cgroup_memory_limit("12:pids:/docker/abc\n4:cpuacct,memory:/docker/abc\n0::/\n", root());
  ASSERT_TRUE(limit.has_value());
  EXPECT_EQ(limit->bytes, 134217728U);
}

TEST_F(CgroupTree, HostileTextIsNoLimitNeverACrash) {
  write("memory.max", "12abc\n");
  write("a/memory.max", "-5\n");
  EXPECT_FALSE(cgroup_memory_limit("0::/a\n", root()).has_value());
  EXPECT_FALSE(cgroup_memory_limit("0::/../../etc\n", root()).has_value());
  EXPECT_FALSE(
      cgroup_memory_limit("garbage without colons\n::\n0::relative\n", root()).has_value());
  EXPECT_FALSE(cgroup_memory_limit("", root()).has_value());
  EXPECT_FALSE(cgroup_memory_limit("0::/missing/dirs\n", root()).has_value());
}

}  // namespace
}  // namespace netif_rx
