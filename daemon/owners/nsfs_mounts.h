// Named network namespaces: nsfs mounts in a mountinfo text (/proc/1/mountinfo).
// `ip netns add NAME` bind-mounts /run/netns/NAME, CNI plugins mount
// /run/netns/cni-<uuid>, podman /run/netns/netns-<uuid>, docker
// /run/docker/netns/<id>. An nsfs mount's root field is "net:[<inode>]".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace netif_rx {

// Namespace inode → the mount point's last component (the first mount of each
// inode wins). Lines that are not nsfs mounts of network namespaces are skipped.
std::map<std::uint32_t, std::string> parse_nsfs_mounts(std::string_view mountinfo_text);

// Namespace inode → the first nsfs mount point of it, whole (unescaped).
std::map<std::uint32_t, std::string> parse_nsfs_mount_points(std::string_view mountinfo_text);

// "net:[4026531840]" → 4026531840; 0 when the text is not that.
std::uint32_t parse_net_link(std::string_view text);

}  // namespace netif_rx
