#include "probe/netns_blocks.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

constexpr std::uint32_t kInum = 4026532000;  // a namespace's inode number

// Applies every write of a plan, as the Poller does when the map takes them.
std::vector<NetnsTableWrite> apply_plan(NetnsBlocks& blocks, const std::vector<NetnsId>& present,
                                        const std::vector<NetnsId>& wanted) {
  auto writes = blocks.plan(present, wanted);
  for (const auto& write : writes) blocks.applied(write);
  return writes;
}

// The blocks to drain, without their namespaces.
std::vector<std::uint32_t> blocks_to_drain(const NetnsBlocks& blocks) {
  std::vector<std::uint32_t> out;
  for (const PlacedNetns& retiring : blocks.to_drain()) out.push_back(retiring.block);
  return out;
}

TEST(NetnsBlocksTest, TableIsAPowerOfTwoAtLeastTwiceTheBlocks) {
  EXPECT_EQ(netns_table_size(0), 1U);
  EXPECT_EQ(netns_table_size(1), 2U);
  EXPECT_EQ(netns_table_size(3), 8U);
  EXPECT_EQ(netns_table_size(64), 128U);
  EXPECT_EQ(netns_table_index(kInum + 5, 128), (kInum + 5) % 128);
}

TEST(NetnsBlocksTest, PlacesWantedNamespacesInTheirEntryWithAFreeBlock) {
  NetnsBlocks blocks(2, netns_table_size(2));
  const NetnsId a{kInum, 7};
  const NetnsId b{kInum + 1, 9};
  const auto writes = apply_plan(blocks, {a, b}, {b, a});
  ASSERT_EQ(writes.size(), 2U);
  EXPECT_EQ(writes[0].index, netns_table_index(a.inum, 4));
  EXPECT_EQ(writes[0].entry.netns_inum, a.inum);
  EXPECT_EQ(writes[0].entry.netns_salt, a.salt);
  EXPECT_EQ(writes[0].entry.block, 0U);
  EXPECT_EQ(writes[1].entry.block, 1U);
  EXPECT_EQ(blocks.block_of(a), 0U);
  EXPECT_EQ(blocks.block_of(b), 1U);
  EXPECT_EQ(blocks.free_blocks(), 0U);
  // Placed: nothing more to write while they have entries.
  EXPECT_TRUE(blocks.plan({a, b}, {a, b}).empty());
}

TEST(NetnsBlocksTest, ACollisionStaysInTheHash) {
  NetnsBlocks blocks(4, netns_table_size(4));  // 8 entries
  const NetnsId a{kInum, 1};
  const NetnsId same_entry{kInum + 8, 2};
  const NetnsId same_inode_new_salt{kInum, 3};
  apply_plan(blocks, {a}, {a});
  EXPECT_TRUE(blocks.plan({a, same_entry}, {same_entry}).empty());
  EXPECT_TRUE(blocks.plan({a, same_inode_new_salt}, {same_inode_new_salt}).empty());
  EXPECT_FALSE(blocks.block_of(same_entry));
  EXPECT_FALSE(blocks.block_of(same_inode_new_salt));
}

TEST(NetnsBlocksTest, NoFreeBlockLeavesTheRestInTheHash) {
  NetnsBlocks blocks(1, netns_table_size(1));  // 2 entries
  const NetnsId a{kInum, 1};
  const NetnsId b{kInum + 1, 1};
  const auto writes = apply_plan(blocks, {a, b}, {a, b});
  ASSERT_EQ(writes.size(), 1U);
  EXPECT_EQ(blocks.block_of(a), 0U);
  EXPECT_FALSE(blocks.block_of(b));
}

TEST(NetnsBlocksTest, RetireEmptiesTheEntryAndFreesTheBlockOnlyAfterADrain) {
  NetnsBlocks blocks(1, netns_table_size(1));
  const NetnsId gone{kInum, 1};
  const NetnsId next{kInum + 1, 2};
  apply_plan(blocks, {gone}, {gone});
  EXPECT_TRUE(blocks.to_drain().empty());
  // A poll that read no entry of it: its entry is emptied, its block retires,
  // and the next namespace finds no free block yet.
  const auto retire = apply_plan(blocks, {next}, {next});
  ASSERT_EQ(retire.size(), 1U);
  EXPECT_EQ(retire[0].entry.netns_inum, 0U);
  EXPECT_EQ(retire[0].entry.block, NETIF_RX_NO_BLOCK);
  EXPECT_FALSE(blocks.block_of(gone));
  EXPECT_FALSE(blocks.block_of(next));
  // The next poll drains it (the probe may have written it until then),
  // then it is free for the next namespace.
  EXPECT_EQ(blocks_to_drain(blocks), std::vector<std::uint32_t>{0});
  EXPECT_EQ(blocks.to_drain()[0].netns, gone);  // what it counted since is its devices'
  blocks.drained(0);
  EXPECT_TRUE(blocks.to_drain().empty());
  apply_plan(blocks, {next}, {next});
  EXPECT_EQ(blocks.block_of(next), 0U);
}

TEST(NetnsBlocksTest, TheBlockDrainedLastIsReusedFirst) {
  NetnsBlocks blocks(3, netns_table_size(3));
  const NetnsId a{kInum, 1};
  const NetnsId b{kInum + 1, 1};
  const NetnsId next{kInum + 2, 1};
  apply_plan(blocks, {a, b}, {a, b});  // blocks 0 and 1; 2 never used
  apply_plan(blocks, {}, {});          // both retire
  ASSERT_EQ(blocks_to_drain(blocks), (std::vector<std::uint32_t>{0, 1}));
  blocks.drained(1);
  blocks.drained(0);
  apply_plan(blocks, {next}, {next});
  EXPECT_EQ(blocks.block_of(next), 0U);
  EXPECT_EQ(blocks.free_blocks(), 2U);
}

TEST(NetnsBlocksTest, AFailedWriteIsPlannedAgain) {
  NetnsBlocks blocks(1, netns_table_size(1));
  const NetnsId a{kInum, 1};
  EXPECT_EQ(blocks.plan({a}, {a}).size(), 1U);  // not applied: the write failed
  EXPECT_FALSE(blocks.block_of(a));
  EXPECT_EQ(apply_plan(blocks, {a}, {a}).size(), 1U);
  EXPECT_EQ(blocks.block_of(a), 0U);
}

TEST(NetnsBlocksTest, AdoptKeepsValidEntriesAndDrainsEveryOtherBlock) {
  NetnsBlocks blocks(3, netns_table_size(3));  // 8 entries
  std::vector<netif_rx_netns_block> table(8);  // a new map: all zero, all empty
  const std::uint32_t index = netns_table_index(kInum, 8);
  table[index] = netif_rx_netns_block_entry(kInum, 5, 2);
  blocks.adopt(table);
  EXPECT_EQ(blocks.block_of({kInum, 5}), 2U);
  EXPECT_EQ(blocks_to_drain(blocks), (std::vector<std::uint32_t>{0, 1}));
  for (const PlacedNetns& retiring : blocks.to_drain())
    EXPECT_EQ(retiring.netns, NetnsId{}) << "whose counts those are is not known";
  EXPECT_EQ(blocks.free_blocks(), 0U);
}

TEST(NetnsBlocksTest, AdoptEmptiesStrayEntriesBeforeAnyDrain) {
  NetnsBlocks blocks(2, netns_table_size(2));  // 4 entries
  std::vector<netif_rx_netns_block> table(4);
  table[netns_table_index(kInum, 4)] = netif_rx_netns_block_entry(kInum, 1, 0);
  table[netns_table_index(kInum + 1, 4)] =
      netif_rx_netns_block_entry(kInum + 1, 1, 0);  // block 0 taken
  table[netns_table_index(kInum + 2, 4)] =
      netif_rx_netns_block_entry(kInum + 3, 1, 1);  // wrong entry
  blocks.adopt(table);
  EXPECT_EQ(blocks.block_of({kInum, 1}), 0U);
  EXPECT_FALSE(blocks.block_of({kInum + 1, 1}));
  EXPECT_TRUE(blocks.to_drain().empty());  // a stray entry may point at any block
  const auto writes = apply_plan(blocks, {{kInum, 1}}, {});
  ASSERT_EQ(writes.size(), 2U);
  for (const auto& write : writes) EXPECT_EQ(write.entry.netns_inum, 0U);
  EXPECT_EQ(blocks_to_drain(blocks), std::vector<std::uint32_t>{1});
}

TEST(NetnsBlocksTest, AnEntryWhoseCheckWordDoesNotMatchIsStray) {
  NetnsBlocks blocks(2, netns_table_size(2));  // 4 entries
  std::vector<netif_rx_netns_block> table(4);
  netif_rx_netns_block torn = netif_rx_netns_block_entry(kInum, 1, 1);
  torn.block = 0;  // read half written: the new inode and salt, the old block
  table[netns_table_index(kInum, 4)] = torn;
  blocks.adopt(table);
  EXPECT_FALSE(blocks.block_of({kInum, 1}));
  EXPECT_TRUE(blocks.to_drain().empty());  // emptied first, like any stray entry
}

TEST(NetnsBlocksTest, CheckWordsOfNeighbouringEntriesDiffer) {
  // The words a torn read could mix: a block's neighbours, an empty entry.
  const std::uint32_t placed = netif_rx_netns_block_check(kInum, 7, 3);
  EXPECT_NE(placed, netif_rx_netns_block_check(kInum, 7, 2));
  EXPECT_NE(placed, netif_rx_netns_block_check(kInum, 7, 0));
  EXPECT_NE(placed, netif_rx_netns_block_check(kInum, 7, NETIF_RX_NO_BLOCK));
  EXPECT_NE(placed, netif_rx_netns_block_check(kInum, 6, 3));
  EXPECT_NE(placed, 0U);
}

}  // namespace
}  // namespace netif_rx
