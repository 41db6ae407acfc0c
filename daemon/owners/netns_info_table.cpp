#include "owners/netns_info_table.h"

#include <algorithm>

namespace netif_rx {

const NetnsInfoEntry* NetnsInfoTable::find(std::uint32_t inum, std::uint32_t salt) const {
  const auto it = std::lower_bound(
      entries.begin(), entries.end(), std::pair{inum, salt},
      [](const NetnsInfoEntry& entry, std::pair<std::uint32_t, std::uint32_t> key) {
        return std::pair{entry.inum, entry.salt} < key;
      });
  if (it == entries.end() || it->inum != inum || it->salt != salt) return nullptr;
  return &*it;
}

}  // namespace netif_rx
