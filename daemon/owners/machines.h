// Owners of network namespaces from systemd-machined's registry: one file a
// machine in /run/systemd/machines/<name> (key=value lines: NAME, LEADER,
// CLASS, ...), as systemd-nspawn, libvirt-lxc and podman with
// --cgroup-manager=systemd register them. A container's namespace is its
// leader process's (/proc/<LEADER>/ns/net, which needs CAP_SYS_PTRACE for
// another user's or a privileged leader, as the process scan does); it is
// kind "container" named by the machine's name. Leaders in the host's
// namespace (VMs, containers without a network of their own) add nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "owners/netns_ids.h"
#include "owners/netns_owner.h"

namespace netif_rx {

inline constexpr std::size_t kMaxMachineFileBytes = 64 << 10;
inline constexpr std::size_t kMaxMachines = 4096;

struct MachineFile {
  std::string name;
  int leader = 0;  // 0: none or not a pid
};

// NAME and LEADER of one registry file's text.
MachineFile parse_machine_file(std::string_view text);

// The machines of `machines_root` by their leader's namespace (at most
// kMaxMachines files read; "unit:" links are skipped). The ids of the
// leaders' namespace files go to `ids`.
std::map<std::uint32_t, NetnsOwner> scan_machines(const std::string& machines_root,
                                                  const std::string& proc_root,
                                                  std::uint32_t host_inum, NetnsIds& ids);

}  // namespace netif_rx
