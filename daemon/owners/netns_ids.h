// The namespace ids (NS_GET_ID) one scan saw behind each inode number, to
// tell whether a namespace the probe keyed by (inode, salt) is the one the
// scan's files name: a namespace that died and a new one that got its inode
// have different ids. An inode seen with two ids in one scan (reused while
// the scan ran) names no namespace for sure until the next scan.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>

namespace netif_rx {

class NetnsIds {
 public:
  // Records that a file of namespace `inum` had `id` (none: not known).
  void note(std::uint32_t inum, std::optional<std::uint64_t> id);
  void merge(const NetnsIds& other);

  enum class Seen { none, one, conflicting };
  Seen seen(std::uint32_t inum) const;
  // The id when seen() is one.
  std::optional<std::uint64_t> id_of(std::uint32_t inum) const;

 private:
  std::map<std::uint32_t, std::uint64_t> ids_;
  std::set<std::uint32_t> conflicting_;
};

// Whether a device key's namespace (inode, salt) is the namespace the scan
// resolved under that inode:
// - same: the scan saw the inode with an id whose low 32 bits are the salt;
// - other: with another id (or two): a different namespace; its owner is not
//   this one's;
// - unchecked: no id to compare (the kernel has no NS_GET_ID, the salt is not
//   the net_cookie, or no file of that inode was opened): the inode decides.
enum class IdentityMatch { same, other, unchecked };
IdentityMatch match_identity(std::uint32_t inum, std::uint32_t salt, const NetnsIds& ids,
                             bool salt_is_netns_id);

}  // namespace netif_rx
