#include "probe/netns_blocks.h"

#include <algorithm>
#include <set>

namespace netif_rx {
namespace {

netif_rx_netns_block empty_entry() { return {0, 0, NETIF_RX_NO_BLOCK, 0}; }

}  // namespace

std::uint32_t netns_table_size(std::uint32_t blocks) {
  if (blocks == 0) return 1;
  std::uint32_t size = 1;
  while (size < 2 * blocks) size <<= 1;
  return size;
}

NetnsBlocks::NetnsBlocks(std::uint32_t blocks, std::uint32_t table_size)
    : table_(table_size), blocks_(blocks, BlockState::free), retired_from_(blocks) {
  for (std::uint32_t block = blocks; block > 0; --block) free_.push_back(block - 1);
}

void NetnsBlocks::adopt(const std::vector<netif_rx_netns_block>& table) {
  std::fill(blocks_.begin(), blocks_.end(), BlockState::retiring);
  std::fill(retired_from_.begin(), retired_from_.end(), NetnsId{});
  free_.clear();
  for (std::size_t i = 0; i < table_.size() && i < table.size(); ++i) {
    const netif_rx_netns_block& found = table[i];
    if (found.netns_inum == 0) continue;  // empty (a new map's entries are all zero)
    Entry& entry = table_[i];
    const bool valid =
        found.netns_inum != 0 && found.block < blocks_.size() &&
        blocks_[found.block] == BlockState::retiring &&
        found.check ==
            netif_rx_netns_block_check(found.netns_inum, found.netns_salt, found.block) &&
        netns_table_index(found.netns_inum, static_cast<std::uint32_t>(table_.size())) == i;
    if (!valid) {
      entry.stray = true;
      continue;
    }
    entry.netns = {found.netns_inum, found.netns_salt};
    entry.block = found.block;
    blocks_[found.block] = BlockState::placed;
  }
}

std::vector<PlacedNetns> NetnsBlocks::to_drain() const {
  std::vector<PlacedNetns> out;
  // A stray entry may point the probe at any block: none is drained before
  // every stray entry was emptied at an earlier poll.
  if (std::any_of(table_.begin(), table_.end(), [](const Entry& entry) { return entry.stray; }))
    return out;
  for (std::uint32_t block = 0; block < blocks_.size(); ++block) {
    if (blocks_[block] == BlockState::retiring) out.push_back({retired_from_[block], block});
  }
  return out;
}

void NetnsBlocks::drained(std::uint32_t block) {
  if (block < blocks_.size() && blocks_[block] == BlockState::retiring) {
    blocks_[block] = BlockState::free;
    retired_from_[block] = {};
    free_.push_back(block);
  }
}

std::vector<NetnsTableWrite> NetnsBlocks::plan(const std::vector<NetnsId>& present,
                                               const std::vector<NetnsId>& wanted) const {
  std::vector<NetnsTableWrite> writes;
  const std::set<NetnsId> seen(present.begin(), present.end());
  std::vector<bool> entry_free(table_.size());
  for (std::uint32_t i = 0; i < table_.size(); ++i) {
    const Entry& entry = table_[i];
    if (entry.stray) {
      writes.push_back({i, empty_entry()});
      continue;  // free only once the write is applied
    }
    if (entry.netns.inum == 0) {
      entry_free[i] = true;
    } else if (seen.count(entry.netns) == 0) {
      writes.push_back({i, empty_entry()});
    }
  }
  auto next_free = free_.rbegin();  // the block freed last first
  const auto table_size = static_cast<std::uint32_t>(table_.size());
  for (const NetnsId& netns : std::set<NetnsId>(wanted.begin(), wanted.end())) {
    if (next_free == free_.rend()) break;
    if (netns.inum == 0) continue;
    const std::uint32_t index = netns_table_index(netns.inum, table_size);
    if (!entry_free[index]) continue;  // held (or its namespace placed): the hash counts it
    entry_free[index] = false;
    writes.push_back({index, netif_rx_netns_block_entry(netns.inum, netns.salt, *next_free++)});
  }
  return writes;
}

void NetnsBlocks::applied(const NetnsTableWrite& write) {
  if (write.index >= table_.size()) return;
  Entry& entry = table_[write.index];
  if (entry.netns.inum != 0 && entry.block < blocks_.size()) {
    blocks_[entry.block] = BlockState::retiring;
    retired_from_[entry.block] = entry.netns;
  }
  entry = {};
  if (write.entry.netns_inum == 0 || write.entry.block >= blocks_.size()) return;
  entry.netns = {write.entry.netns_inum, write.entry.netns_salt};
  entry.block = write.entry.block;
  blocks_[entry.block] = BlockState::placed;
  std::erase(free_, entry.block);
}

std::optional<std::uint32_t> NetnsBlocks::block_of(const NetnsId& netns) const {
  if (netns.inum == 0) return std::nullopt;
  const Entry& entry =
      table_[netns_table_index(netns.inum, static_cast<std::uint32_t>(table_.size()))];
  if (entry.stray || !(entry.netns == netns)) return std::nullopt;
  return entry.block;
}

std::vector<PlacedNetns> NetnsBlocks::placed() const {
  std::vector<PlacedNetns> out;
  for (const Entry& entry : table_) {
    if (!entry.stray && entry.netns.inum != 0) out.push_back({entry.netns, entry.block});
  }
  return out;
}

std::uint32_t NetnsBlocks::free_blocks() const { return static_cast<std::uint32_t>(free_.size()); }

}  // namespace netif_rx
