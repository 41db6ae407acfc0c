// A network namespace whose inode number the kernel reuses, against the real
// kernel, namespaces: all. The kernel hands out the lowest free inode number,
// so a namespace created after another one's end often gets its number; with
// a device of the same name and the same ifindex (every pod's eth0 is 2),
// only the namespace's salt (the low half of struct net's net_cookie, or its
// hash_mix before Linux 5.12) tells the two apart.
// The test: a namespace with a veth end, a known burst, the namespace deleted;
// new namespaces until one gets the same inode number (bounded in attempts
// and time), the same device in it, a second known burst. The exported series
// of (netns, device) must be exactly the second burst, no label set twice,
// the first burst in netif_rx_removed_packets_total, and every counted packet
// accounted for, and the inode's netif_rx_netns_info naming the live
// namespace.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "command.h"
#include "exporter_process.h"
#include "lifecycle_support.h"
#include "raw_scrape.h"
#include "series_query.h"
#include "test_namespaces.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

constexpr int kFirstBurst = 30;
constexpr int kSecondBurst = 17;
constexpr int kPayload = 100;
constexpr int kCycles = 6;  // namespaces deleted and waited for
const std::string kPackets = "netif_rx_packets_total";

class NamespaceReuse : public ::testing::Test {
 protected:
  NamespaceReuse()
      : prefix_("nrx" + std::to_string(::getpid() % 100000) + "u"),
        network_(prefix_),
        namespaces_(prefix_ + "n") {}

  // The pod's namespace: a veth end named `device_` with ifindex 2 (the
  // first device made in a namespace), its peer in the exporter's namespace.
  VethPair add_pod_device(const std::string& netns) {
    wait_until_gone(prefix_ + "h");
    const VethPair pair = network_.add_veth_pair("h", home_, "t", netns, 1);
    EXPECT_EQ(network_.ifindex(netns, pair.b.name), 2);
    return pair;
  }

  // A dead namespace's veth goes with it, asynchronously: its peer in the
  // exporter's namespace may still be there for a moment.
  void wait_until_gone(const std::string& link) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (run_command({"ip", "-n", home_, "link", "show", link}).exit_code == 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  double exported(const Series& series, std::uint32_t inode) {
    return sum_where(series, kPackets, {{"device", device_}, {"netns", std::to_string(inode)}});
  }

  std::string prefix_;
  TestNetwork network_;
  TestNamespaces namespaces_;
  std::string home_;
  std::string device_;
};

TEST_F(NamespaceReuse, AReusedInodeNumberNeverContinuesADeadNamespacesCounters) {
  home_ = network_.add_namespace("h");
  device_ = prefix_ + "t";
  ExporterProcess exporter("poll_interval: 100ms\nnamespaces: all\n", {}, home_);
  ASSERT_TRUE(exporter.wait_ready()) << exporter.log();

  std::string reused;
  std::uint32_t inode = 0;
  int attempts = 0;
  int cycle = 0;
  for (; cycle < kCycles && reused.empty(); ++cycle) {
    // The namespace that dies, with its first burst counted and exported.
    const auto [dead, dead_inode] = namespaces_.add();
    ASSERT_NE(dead_inode, 0u) << "ip netns add " << dead << " failed";
    const VethPair pair = add_pod_device(dead);
    ASSERT_EQ(send_udp(home_, 0, pair.b.address, kFirstBurst, kPayload), kFirstBurst);
    scrape_until(exporter, [&](const Series& s) { return exported(s, dead_inode) == kFirstBurst; });
    ASSERT_EQ(exported(exporter.scrape(), dead_inode), kFirstBurst) << exporter.log();
    namespaces_.remove(dead);
    inode = dead_inode;
    reused = namespace_with_inode(namespaces_, inode, attempts);
    namespaces_.remove_all_but(reused);
  }
  ASSERT_FALSE(reused.empty())
      << "no new namespace got a deleted namespace's inode number in " << kCycles << " cycles ("
      << attempts << " namespaces created): other processes took the freed numbers meanwhile";
  std::printf("namespace reuse: inode %u reused after %d cycle(s), %d namespace(s) created\n",
              inode, cycle, attempts);

  // The first burst of the dead namespace is still exported under the same
  // (netns, device) until the new device's entry appears.
  const VethPair pair = add_pod_device(reused);
  ASSERT_EQ(send_udp(home_, 0, pair.b.address, kSecondBurst, kPayload), kSecondBurst);
  scrape_until(exporter, [&](const Series& s) { return exported(s, inode) == kSecondBurst; });
  const RawScrape scrape = raw_scrape(exporter);
  const double shown = exported(scrape.series, inode);
  const double difference = scrape.counted - (scrape.exported + scrape.untracked + scrape.removed);
  std::printf(
      "namespace reuse: (netns %u, %s) exports %.0f (second burst %d, first burst %d); duplicate "
      "label sets %d; counted %.0f - (exported %.0f + untracked %.0f + removed %.0f) = %.0f\n",
      inode, device_.c_str(), shown, kSecondBurst, kFirstBurst, scrape.duplicates, scrape.counted,
      scrape.exported, scrape.untracked, scrape.removed, difference);
  EXPECT_EQ(shown, kSecondBurst) << exporter.log();
  EXPECT_EQ(scrape.duplicates, 0);
  // The dead device's first burst went to the removed counters (a dead
  // namespace of a cycle that found no reuse stays exported under its own
  // inode number until stale_after).
  EXPECT_GE(scrape.removed, kFirstBurst);
  // The whole host counts (namespaces: all), so packets arrive between the
  // read of the probe's total and the read of the devices: the difference
  // can be negative, never positive (a packet lost).
  EXPECT_LE(difference, 0);
  EXPECT_EQ(poll_errors(scrape.series), 0) << exporter.log();

  // The inode's netif_rx_netns_info describes the live namespace, the newest
  // of that inode number (resolved at once: a new namespace is scanned
  // within 2 s), never the dead one, and is the inode's only info series.
  const std::string netns = std::to_string(inode);
  const Labels live{{"netns", netns}, {"netns_name", reused}};
  const Series with_info = scrape_until(
      exporter, [&](const Series& s) { return count_where(s, "netif_rx_netns_info", live) == 1; });
  std::printf("namespace reuse: netif_rx_netns_info of netns %s: %d series, %d naming %s\n",
              netns.c_str(), count_where(with_info, "netif_rx_netns_info", {{"netns", netns}}),
              count_where(with_info, "netif_rx_netns_info", live), reused.c_str());
  EXPECT_EQ(count_where(with_info, "netif_rx_netns_info", live), 1) << exporter.log();
  EXPECT_EQ(count_where(with_info, "netif_rx_netns_info", {{"netns", netns}}), 1);
  EXPECT_EQ(exporter.stop(), 0) << exporter.log();
}

}  // namespace
}  // namespace netif_rx::test
