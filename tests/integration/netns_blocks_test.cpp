// Other namespaces' devices counted in blocks of array slots, against the
// real kernel, namespaces: all. The exporter runs in a namespace of its own;
// test namespaces get devices and known bursts: a burst before the namespace
// is placed (counted in the hash), one after (counted in its block's slot),
// and the exported series must be exactly their sum. A namespace with a
// device beyond its block (ifindex 20, blocks of 8 slots) keeps that device
// in the hash. Then a namespace is deleted: its devices go stale, their
// counts move to the removed counts, its block is retired, drained and handed
// to a new namespace, whose series must be exactly its own bursts. Through
// all of it, counted = exported + untracked + removed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <set>
#include <string>
#include <thread>

#include "bpf_maps.h"
#include "exporter_process.h"
#include "lifecycle_support.h"
#include "raw_scrape.h"
#include "series_query.h"
#include "test_namespaces.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

constexpr int kPayload = 100;
constexpr std::uint32_t kBlockSlots = 8;
constexpr int kBigIfindex = 20;  // beyond a block of kBlockSlots
const std::string kPackets = "netif_rx_packets_total";
const std::string kConfig =
    "poll_interval: 100ms\nnamespaces: all\nstale_after: 3s\nnetns_blocks: 1024\n"
    "netns_block_slots: 8\n";

class NetnsBlocks : public ::testing::Test {
 protected:
  NetnsBlocks()
      : prefix_("nrx" + std::to_string(::getpid() % 100000) + "b"),
        network_(prefix_),
        namespaces_(prefix_ + "n") {}

  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
  }

  double exported(const Series& series, const std::string& device, std::uint32_t inode) {
    return sum_where(series, kPackets, {{"device", device}, {"netns", std::to_string(inode)}});
  }

  // Waits until namespace `inode` holds a block in the probe's table.
  netif_rx_netns_block wait_placed(const ExporterProcess& exporter, std::uint32_t inode) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    netif_rx_netns_block entry = netns_table_entry(exporter.pid(), inode);
    while (entry.netns_inum == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      entry = netns_table_entry(exporter.pid(), inode);
    }
    return entry;
  }

  std::string prefix_;
  TestNetwork network_;
  TestNamespaces namespaces_;
};

TEST_F(NetnsBlocks, DevicesOfPlacedNamespacesCountExactlyAndABlockIsReusedWithoutLeaks) {
  const std::string home = network_.add_namespace("h");
  ExporterProcess exporter(kConfig, {}, home);
  ASSERT_TRUE(exporter.wait_ready()) << exporter.log();

  // Two namespaces with a device of ifindex 2 each; the second also has one
  // of ifindex 20, beyond its block.
  const auto first_added = namespaces_.add();
  const std::string first = first_added.first;
  const std::uint32_t first_inode = first_added.second;
  ASSERT_NE(first_inode, 0U) << "ip netns add " << first << " failed";
  const std::string second = network_.add_namespace("c");
  const VethPair first_pair = network_.add_veth_pair("ha", home, "a", first, 1);
  const VethPair second_pair = network_.add_veth_pair("hc", home, "c", second, 2);
  const VethPair big_pair = network_.add_veth_pair("g", second, "hg", home, 3, kBigIfindex);
  ASSERT_EQ(network_.ifindex(first, first_pair.b.name), 2);
  ASSERT_EQ(network_.ifindex(second, second_pair.b.name), 2);
  ASSERT_EQ(network_.ifindex(second, big_pair.a.name), kBigIfindex);
  const std::uint32_t second_inode = netns_inode(second);
  ASSERT_NE(first_inode % 128, second_inode % 128)
      << "the two namespaces share a table entry (inodes " << first_inode << ", " << second_inode
      << "): one would stay in the hash";
  std::set<std::uint32_t> used_blocks;  // every block seen held during the test

  // Before placement: the hash.
  ASSERT_EQ(send_udp(home, 0, first_pair.b.address, 11, kPayload), 11);
  ASSERT_EQ(send_udp(home, 0, second_pair.b.address, 12, kPayload), 12);
  ASSERT_EQ(send_udp(home, 0, big_pair.a.address, 13, kPayload), 13);
  const netif_rx_netns_block first_entry = wait_placed(exporter, first_inode);
  const netif_rx_netns_block second_entry = wait_placed(exporter, second_inode);
  ASSERT_NE(first_entry.netns_inum, 0U) << "namespace " << first_inode << " got no block\n"
                                        << exporter.log();
  ASSERT_NE(second_entry.netns_inum, 0U) << "namespace " << second_inode << " got no block\n"
                                         << exporter.log();
  ASSERT_NE(first_entry.block, second_entry.block);
  used_blocks = netns_table_blocks(exporter.pid());

  // After placement: the slots, and the hash for ifindex 20.
  ASSERT_EQ(send_udp(home, 1, first_pair.b.address, 21, kPayload), 21);
  ASSERT_EQ(send_udp(home, 1, second_pair.b.address, 22, kPayload), 22);
  ASSERT_EQ(send_udp(home, 1, big_pair.a.address, 23, kPayload), 23);
  auto settled = [&](const Series& s) {
    return exported(s, first_pair.b.name, first_inode) == 11 + 21 &&
           exported(s, second_pair.b.name, second_inode) == 12 + 22 &&
           exported(s, big_pair.a.name, second_inode) == 13 + 23;
  };
  Series series = scrape_until(exporter, settled);
  std::printf(
      "netns blocks: namespace %u in block %u, %u in block %u; exported %.0f, %.0f, ifindex %d "
      "%.0f\n",
      first_inode, first_entry.block, second_inode, second_entry.block,
      exported(series, first_pair.b.name, first_inode),
      exported(series, second_pair.b.name, second_inode), kBigIfindex,
      exported(series, big_pair.a.name, second_inode));
  EXPECT_EQ(exported(series, first_pair.b.name, first_inode), 11 + 21) << exporter.log();
  EXPECT_EQ(exported(series, second_pair.b.name, second_inode), 12 + 22) << exporter.log();
  EXPECT_EQ(exported(series, big_pair.a.name, second_inode), 13 + 23) << exporter.log();
  // The second bursts are in the slots; the first ones stayed in the hash.
  EXPECT_EQ(netns_slot_skbs(exporter.pid(), first_entry.block * kBlockSlots + 2), 21U);
  EXPECT_EQ(netns_slot_skbs(exporter.pid(), second_entry.block * kBlockSlots + 2), 22U);
  const auto hash_keys = map_keys(exporter.pid(), "device_counters");
  EXPECT_EQ(keys_in(hash_keys, first_inode).size(), 1U);
  EXPECT_EQ(keys_in(hash_keys, second_inode).size(), 2U);  // ifindex 2 and 20

  // The first namespace goes: its device goes stale (3 s), its block is
  // retired, then drained. The second one's devices go stale too (no
  // traffic): its block is drained as well.
  namespaces_.remove(first);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (netns_table_entry(exporter.pid(), first_inode).netns_inum != 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    used_blocks.merge(netns_table_blocks(exporter.pid()));
  }
  ASSERT_EQ(netns_table_entry(exporter.pid(), first_inode).netns_inum, 0U)
      << "namespace " << first_inode << " kept its block\n"
      << exporter.log();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // a few polls: drained

  // A new namespace (it may get the dead one's inode number) takes the block
  // drained last (theirs, unless another namespace of the machine went
  // meanwhile): one that held counts, zeroed.
  const auto next_added = namespaces_.add();
  const std::string next = next_added.first;
  const std::uint32_t next_inode = next_added.second;
  ASSERT_NE(next_inode, 0U) << "ip netns add " << next << " failed";
  const VethPair next_pair = network_.add_veth_pair("hn", home, "n", next, 4);
  ASSERT_EQ(network_.ifindex(next, next_pair.b.name), 2);
  ASSERT_EQ(send_udp(home, 0, next_pair.b.address, 31, kPayload), 31);
  const netif_rx_netns_block next_entry = wait_placed(exporter, next_inode);
  ASSERT_NE(next_entry.netns_inum, 0U) << "namespace " << next_inode << " got no block\n"
                                       << exporter.log();
  ASSERT_EQ(send_udp(home, 1, next_pair.b.address, 41, kPayload), 41);
  series = scrape_until(
      exporter, [&](const Series& s) { return exported(s, next_pair.b.name, next_inode) == 72; });
  const RawScrape scrape = raw_scrape(exporter);
  const double difference = scrape.counted - (scrape.exported + scrape.untracked + scrape.removed);
  std::printf(
      "netns blocks: namespace %u (inode %s) got block %u (the retired ones: %u, %u; %zu blocks "
      "seen held); exported %.0f of 31 + 41; counted %.0f - (exported %.0f + untracked %.0f + "
      "removed %.0f) = %.0f\n",
      next_inode, next_inode == first_inode ? "reused" : "new", next_entry.block, first_entry.block,
      second_entry.block, used_blocks.size(), exported(scrape.series, next_pair.b.name, next_inode),
      scrape.counted, scrape.exported, scrape.untracked, scrape.removed, difference);
  EXPECT_EQ(used_blocks.count(next_entry.block), 1U)
      << "block " << next_entry.block
      << " held no namespace before: a drained block is handed out before an untouched one";
  EXPECT_EQ(exported(scrape.series, next_pair.b.name, next_inode), 31 + 41) << exporter.log();
  EXPECT_EQ(netns_slot_skbs(exporter.pid(), next_entry.block * kBlockSlots + 2), 41U);
  EXPECT_EQ(scrape.duplicates, 0);
  EXPECT_GE(scrape.removed, 11 + 21);  // the dead namespace's device
  // namespaces: all counts the whole machine: packets arrive between the read
  // of the probe's total and that of the devices, so the difference may be
  // negative, never positive (a packet lost).
  EXPECT_LE(difference, 0);
  EXPECT_EQ(poll_errors(scrape.series), 0) << exporter.log();
  EXPECT_EQ(exporter.stop(), 0) << exporter.log();
}

}  // namespace
}  // namespace netif_rx::test
