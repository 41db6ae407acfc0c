#include "owners/process_scan.h"

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>

#include "fake_tree.h"

namespace netif_rx {
namespace {

constexpr std::uint32_t kHost = 4026531840;
const std::string kWeb = "0::/kubepods/burstable/pod11111111-2222-3333-4444-555555555555/c1\n";
const std::string kDb =
    "0::/kubepods.slice/kubepods-pod66666666_2222_3333_4444_555555555555.slice/crio-2.scope\n";

TEST(ProcessScan, GroupsPodUidsByNamespace) {
  FakeTree tree;
  tree.process(1, kHost, "0::/init.scope\n");
  tree.process(100, 4026532100, kWeb);
  tree.process(101, 4026532100, kWeb);
  tree.process(200, 4026532200, kDb);
  tree.process(300, 4026532300, "0::/system.slice/something.service\n");
  tree.write("proc/self/cgroup", "not a process folder\n");
  tree.write("proc/400/cgroup", kWeb);  // no ns/net: gone, or no permission
  const ProcessScan scan = scan_processes(tree.path("proc"), kHost, 100);
  EXPECT_EQ(scan.processes, 5U);
  EXPECT_EQ(scan.unreadable, 1U);
  EXPECT_EQ(scan.pod_uids.at(4026532100),
            std::vector<std::string>{"11111111-2222-3333-4444-555555555555"});
  EXPECT_EQ(scan.pod_uids.at(4026532200),
            std::vector<std::string>{"66666666-2222-3333-4444-555555555555"});
  EXPECT_TRUE(scan.pod_uids.at(4026532300).empty());
  EXPECT_EQ(scan.pod_uids.count(kHost), 0U);  // the host's processes are not asked
}

TEST(ProcessScan, TwoPodsInOneNamespaceAreBothKept) {
  FakeTree tree;
  tree.process(100, 4026532100, kWeb);
  tree.process(101, 4026532100, kDb);
  const ProcessScan scan = scan_processes(tree.path("proc"), kHost, 100);
  EXPECT_EQ(scan.pod_uids.at(4026532100).size(), 2U);
}

TEST(ProcessScan, BoundedWithADropCount) {
  FakeTree tree;
  for (int pid = 100; pid < 110; ++pid) tree.process(pid, 4026532100, kWeb);
  const ProcessScan scan = scan_processes(tree.path("proc"), kHost, 4);
  EXPECT_EQ(scan.processes, 4U);
  EXPECT_EQ(scan.dropped, 6U);
  EXPECT_TRUE(scan_processes(tree.path("absent"), kHost, 4).pod_uids.empty());
}

// The scan's cost, printed (not asserted: timings belong to harnesses): 1,000
// pod processes in 100 namespaces, cgroup files read for each.
TEST(ProcessScan, ThousandProcessesCost) {
  FakeTree tree;
  for (int pid = 1000; pid < 2000; ++pid) {
    tree.process(pid, 4026533000 + static_cast<std::uint32_t>(pid % 100), kWeb);
  }
  const auto started = std::chrono::steady_clock::now();
  const ProcessScan scan = scan_processes(tree.path("proc"), kHost, 65536);
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(scan.processes, 1000U);
  EXPECT_EQ(scan.pod_uids.size(), 100U);
  std::cout << "scan of 1000 processes (fake tree): "
            << std::chrono::duration<double, std::milli>(took).count() << " ms\n";
}

}  // namespace
}  // namespace netif_rx
