#include "owners/machines.h"

#include <dirent.h>
#include <unistd.h>

#include <charconv>
#include <memory>

#include "owners/netns_file.h"
#include "util/read_file.h"

namespace netif_rx {

MachineFile parse_machine_file(std::string_view text) {
  MachineFile out;
  while (!text.empty()) {
    const auto end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (line.rfind("NAME=", 0) == 0) out.name = std::string(line.substr(5));
    if (line.rfind("LEADER=", 0) == 0) {
      const std::string_view value = line.substr(7);
      int pid = 0;
      const auto [at, error] = std::from_chars(value.data(), value.data() + value.size(), pid);
      out.leader = error == std::errc{} && at == value.data() + value.size() && pid > 0 ? pid : 0;
    }
  }
  return out;
}

std::map<std::uint32_t, NetnsOwner> scan_machines(const std::string& machines_root,
                                                  const std::string& proc_root,
                                                  std::uint32_t host_inum, NetnsIds& ids) {
  std::map<std::uint32_t, NetnsOwner> out;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(machines_root.c_str()), ::closedir);
  if (!dir) return out;
  std::size_t read = 0;
  while (const dirent* entry = ::readdir(dir.get())) {
    const std::string_view file = entry->d_name;
    if (file.empty() || file.front() == '.' || file.rfind("unit:", 0) == 0) continue;
    if (++read > kMaxMachines) break;
    const auto text = read_file(machines_root + "/" + std::string(file), kMaxMachineFileBytes);
    if (!text) continue;
    const MachineFile machine = parse_machine_file(*text);
    if (machine.name.empty() || machine.leader == 0) continue;
    const std::string path = proc_root + "/" + std::to_string(machine.leader) + "/ns/net";
    const NetnsFileIdentity identity = netns_link_identity(path);
    const std::uint32_t inode = identity.inum;
    if (inode == 0 || inode == host_inum) continue;
    ids.note(inode, identity.id);
    NetnsOwner owner;
    owner.kind = OwnerKind::container;
    owner.container = machine.name;
    const auto [it, inserted] = out.emplace(inode, owner);
    if (!inserted && it->second != owner)
      it->second = NetnsOwner{OwnerKind::ambiguous, {}, {}, {}, {}, {}};
  }
  return out;
}

}  // namespace netif_rx
