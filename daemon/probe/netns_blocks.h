// Which namespace owns which block of the probe's `netns_slots` array, and
// the direct-mapped table `netns_table` that tells the probe (see
// bpf/netif_rx.h). Pure: the Poller reads and writes the maps and tells this
// class what it did.
//
// A block's life: free (all its slots are zero) -> placed (its table entry
// holds the namespace, written after the block was zeroed) -> retiring (its
// entry was emptied: a run of the probe that read the entry before may still
// write a slot) -> drained at a later poll, once every run of the probe that
// started before it is over (its last counts read, its slots
// zeroed) -> free. A namespace is retired once the poll read no entry of it
// (no hash entry, no slot that counted): its devices were forgotten, their
// counts moved to the removed totals. What a slot counted between that read
// and the emptied entry belongs to a device that lives: the drain carries it
// to that device (pipeline/carried_devices.h); the slots of a block whose
// last namespace is not known (an adopted probe's) go to the removed totals.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "netif_rx.h"

namespace netif_rx {

// A network namespace as the probe keys it.
struct NetnsId {
  std::uint32_t inum = 0;
  std::uint32_t salt = 0;
  bool operator==(const NetnsId&) const = default;
  auto operator<=>(const NetnsId&) const = default;
};

// Entries of netns_table for `blocks` blocks: a power of two, twice the
// blocks or more so that consecutive inode numbers rarely collide; 1 when
// blocks is 0 (a map needs an entry).
std::uint32_t netns_table_size(std::uint32_t blocks);

// The entry of netns_table that the probe reads for `inum`.
inline std::uint32_t netns_table_index(std::uint32_t inum, std::uint32_t table_size) {
  return inum & (table_size - 1);
}

struct NetnsTableWrite {
  std::uint32_t index = 0;
  netif_rx_netns_block entry{};  // empty: netns_inum 0, block NETIF_RX_NO_BLOCK
};

// A namespace's block, as placed.
struct PlacedNetns {
  NetnsId netns;
  std::uint32_t block = 0;
};

class NetnsBlocks {
 public:
  NetnsBlocks(std::uint32_t blocks, std::uint32_t table_size);

  // The table as found in the map (a pinned probe adopted): its entries'
  // blocks are placed; every other block may hold counts of a namespace
  // retired meanwhile, so it is drained before its first use. Entries that
  // name no valid block, or a block another entry holds, are emptied by the
  // next plan().
  void adopt(const std::vector<netif_rx_netns_block>& table);

  // Blocks to read and zero now, with the namespace that held each (inum 0:
  // not known, an adopted block): their entries were emptied at an earlier
  // poll (none while an adopted stray entry is not emptied yet). Call
  // drained() for each once done.
  std::vector<PlacedNetns> to_drain() const;
  void drained(std::uint32_t block);

  // The table writes of this poll: empties the entries of placed namespaces
  // that are not in `present` (no entry read), then places namespaces of
  // `wanted` (sorted; those not placed yet) whose entry is empty, while free
  // blocks last (the block drained last first). Apply each write in order and call applied() for
  // each that succeeded; a failed one is planned again at the next poll.
  std::vector<NetnsTableWrite> plan(const std::vector<NetnsId>& present,
                                    const std::vector<NetnsId>& wanted) const;
  void applied(const NetnsTableWrite& write);

  // The block of `netns`, if it has one (retiring blocks have none).
  std::optional<std::uint32_t> block_of(const NetnsId& netns) const;
  std::vector<PlacedNetns> placed() const;
  std::uint32_t free_blocks() const;

 private:
  enum class BlockState : std::uint8_t { free, placed, retiring };
  struct Entry {
    NetnsId netns;  // inum 0: empty
    std::uint32_t block = NETIF_RX_NO_BLOCK;
    bool stray = false;  // adopted and not valid: to be emptied
  };

  std::vector<Entry> table_;
  std::vector<BlockState> blocks_;
  std::vector<NetnsId> retired_from_;  // by block: the namespace a retiring block held
  // The free blocks; the last is handed out first: the block drained last
  // (a block is reused before an untouched one), else the lowest.
  std::vector<std::uint32_t> free_;
};

}  // namespace netif_rx
