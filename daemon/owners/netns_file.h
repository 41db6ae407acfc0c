// The identity of a network namespace file (a bind mount, /proc/<pid>/ns/net):
// its inode number and, where the kernel has the NS_GET_ID ioctl (Linux 6.18),
// its id: a 64-bit counter value never reused within a boot, equal to the
// namespace's net_cookie, whose low half the probe keys devices with. Opening
// the file needs what reading its link needs (for another user's process,
// CAP_SYS_PTRACE), nothing more.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace netif_rx {

struct NetnsFileIdentity {
  std::uint32_t inum = 0;           // 0: not a namespace file, or gone
  std::optional<std::uint64_t> id;  // none: the kernel has no NS_GET_ID
};

// `path` when it is a namespace file (nsfs), opened once: its inode and id
// come from the same open file, so they are of one namespace.
NetnsFileIdentity open_netns_file(const std::string& path);

// A /proc/<pid>/ns/net link (of a trusted proc root): opened as above, else
// (a fake tree's link, a process gone, a kernel without NS_GET_ID, which makes
// the open useless) its target's text "net:[<inode>]", without id.
NetnsFileIdentity netns_link_identity(const std::string& path);

}  // namespace netif_rx
