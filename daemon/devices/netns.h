// Network namespace identity.
#pragma once

#include <cstdint>
#include <optional>

namespace netif_rx {

// Inode number of the calling process's network namespace (/proc/self/ns/net),
// the same number the kernel keeps in net->ns.inum.
std::optional<std::uint32_t> current_netns_inum();

}  // namespace netif_rx
