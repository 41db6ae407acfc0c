#include "owners/netns_ids.h"

namespace netif_rx {

void NetnsIds::note(std::uint32_t inum, std::optional<std::uint64_t> id) {
  if (inum == 0 || !id) return;
  const auto [it, inserted] = ids_.emplace(inum, *id);
  if (!inserted && it->second != *id) conflicting_.insert(inum);
}

void NetnsIds::merge(const NetnsIds& other) {
  for (const auto& [inum, id] : other.ids_) note(inum, id);
  conflicting_.insert(other.conflicting_.begin(), other.conflicting_.end());
}

NetnsIds::Seen NetnsIds::seen(std::uint32_t inum) const {
  if (conflicting_.count(inum) != 0) return Seen::conflicting;
  return ids_.count(inum) != 0 ? Seen::one : Seen::none;
}

std::optional<std::uint64_t> NetnsIds::id_of(std::uint32_t inum) const {
  if (seen(inum) != Seen::one) return std::nullopt;
  return ids_.at(inum);
}

IdentityMatch match_identity(std::uint32_t inum, std::uint32_t salt, const NetnsIds& ids,
                             bool salt_is_netns_id) {
  if (!salt_is_netns_id) return IdentityMatch::unchecked;
  switch (ids.seen(inum)) {
    case NetnsIds::Seen::none:
      return IdentityMatch::unchecked;
    case NetnsIds::Seen::conflicting:
      return IdentityMatch::other;
    case NetnsIds::Seen::one:
      break;
  }
  return static_cast<std::uint32_t>(*ids.id_of(inum)) == salt ? IdentityMatch::same
                                                              : IdentityMatch::other;
}

}  // namespace netif_rx
