#include "owners/process_scan.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

#include "owners/libpod_cgroup.h"
#include "owners/netns_file.h"
#include "owners/pod_uid.h"
#include "util/read_file.h"

namespace netif_rx {
namespace {

constexpr std::size_t kMaxCgroupBytes = 64 << 10;

bool all_digits(const char* name) {
  if (*name == '\0') return false;
  for (; *name; ++name) {
    if (*name < '0' || *name > '9') return false;
  }
  return true;
}

}  // namespace

ProcessScan scan_processes(const std::string& proc_root, std::uint32_t host_inum,
                           std::size_t max_processes) {
  ProcessScan out;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(proc_root.c_str()), ::closedir);
  if (!dir) return out;
  std::string path;
  while (const dirent* entry = ::readdir(dir.get())) {
    if (!all_digits(entry->d_name)) continue;
    if (out.processes + out.unreadable >= max_processes) {
      ++out.dropped;
      continue;
    }
    path.assign(proc_root).append("/").append(entry->d_name).append("/ns/net");
    const NetnsFileIdentity identity = netns_link_identity(path);
    const std::uint32_t inode = identity.inum;
    if (inode == 0) {
      ++out.unreadable;
      continue;
    }
    ++out.processes;
    out.ids.note(inode, identity.id);
    if (inode == host_inum) continue;
    auto& uids = out.pod_uids[inode];
    if (uids.size() >= 2) continue;  // already ambiguous
    path.assign(proc_root).append("/").append(entry->d_name).append("/cgroup");
    const auto cgroup = read_file(path, kMaxCgroupBytes);
    if (!cgroup) continue;
    auto found = pod_uids_in_cgroup(*cgroup);
    for (auto& uid : found) {
      if (uids.size() < 2 && std::find(uids.begin(), uids.end(), uid) == uids.end()) {
        uids.push_back(std::move(uid));
      }
    }
    if (!found.empty()) continue;
    if (auto id = libpod_container_in_cgroup(*cgroup)) {
      auto& ids = out.libpod_ids[inode];
      if (ids.size() < kMaxLibpodIdsPerNetns &&
          std::find(ids.begin(), ids.end(), *id) == ids.end()) {
        ids.push_back(std::move(*id));
      }
    }
  }
  return out;
}

}  // namespace netif_rx
