// Who owns a namespace when the kernel reuses its inode number: a named
// namespace with a known count on its loopback is resolved, then deleted;
// new namespaces (another name) are made until one gets the same number
// (bounded), and receive another count. No scrape may show the new
// namespace's counter beside the dead one's owner: the attribution resolves
// a namespace again when its inode comes back with a new salt, and shows an
// info series only for the exact namespace it resolved. Everything the test
// makes goes when it ends, also when it fails.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "exporter_process.h"
#include "lifecycle_support.h"
#include "series_query.h"
#include "test_namespaces.h"

namespace netif_rx::test {
namespace {

// Each datagram to a closed port draws an ICMP error back over the loopback:
// the dead namespace's counter reaches 2 * kOldPackets, under kNewPackets.
constexpr int kOldPackets = 3;
constexpr int kNewPackets = 7;
constexpr int kCycles = 6;
const std::string kInfo = "netif_rx_netns_info";

TEST(NetnsOwnersReuse, AReusedInodeIsResolvedAgainNeverShowingTheDeadOwner) {
  const std::string prefix = "owr" + std::to_string(::getpid() % 100000) + "n";
  TestNamespaces namespaces(prefix);
  ExporterProcess exporter(
      "poll_interval: 100ms\nnamespaces: all\nbpf_stats:\n  mode: off\n"
      "attribution:\n  bundle_roots: []\n  processes: false\n");
  ASSERT_TRUE(exporter.wait_ready()) << exporter.log();

  std::string dead_name;
  std::string reused;
  std::uint32_t inode = 0;
  int attempts = 0;
  for (int cycle = 0; cycle < kCycles && reused.empty(); ++cycle) {
    const auto [name, got] = namespaces.add();
    ASSERT_NE(got, 0U);
    send_loopback_datagrams(name, kOldPackets);
    const Labels old_info{{"kind", "named"}, {"netns", std::to_string(got)}, {"netns_name", name}};
    const Series resolved = scrape_until(
        exporter, [&](const Series& s) { return s.count(series_key(kInfo, old_info)) == 1; },
        10000);
    ASSERT_EQ(resolved.count(series_key(kInfo, old_info)), 1U) << exporter.log();
    namespaces.remove(name);
    dead_name = name;
    inode = got;
    reused = namespace_with_inode(namespaces, inode, attempts);
    namespaces.remove_all_but(reused);
  }
  ASSERT_FALSE(reused.empty()) << "no new namespace got a deleted namespace's inode number in "
                               << kCycles << " cycles (" << attempts << " namespaces created)";
  std::printf("owner reuse: inode %u of %s reused by %s (%d namespaces created)\n", inode,
              dead_name.c_str(), reused.c_str(), attempts);

  send_loopback_datagrams(reused, kNewPackets);
  const Labels new_info{
      {"kind", "named"}, {"netns", std::to_string(inode)}, {"netns_name", reused}};
  // Every scrape until the new owner shows: the new namespace's counter never
  // beside the dead namespace's owner.
  int scrapes = 0;
  int wrong = 0;
  bool resolved = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (!resolved && std::chrono::steady_clock::now() < deadline) {
    const Series series = exporter.scrape();
    ++scrapes;
    const bool new_counter = loopback_packets(series, inode) >= kNewPackets;
    const bool dead_owner =
        count_where(series, kInfo, {{"netns", std::to_string(inode)}, {"netns_name", dead_name}}) >
        0;
    if (new_counter && dead_owner) ++wrong;
    resolved = new_counter && series.count(series_key(kInfo, new_info)) == 1;
    EXPECT_LE(count_where(series, kInfo, {{"netns", std::to_string(inode)}}), 1);
    if (!resolved) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::printf("owner reuse: %d scrapes until %s showed, %d with the dead owner\n", scrapes,
              reused.c_str(), wrong);
  EXPECT_TRUE(resolved) << series_key(kInfo, new_info) << "\n" << exporter.log();
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(exporter.stop(), 0) << exporter.log();
}

}  // namespace
}  // namespace netif_rx::test
