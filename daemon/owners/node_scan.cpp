#include "owners/node_scan.h"

#include "owners/machines.h"
#include "owners/netns_file.h"
#include "owners/nsfs_mounts.h"
#include "util/read_file.h"

namespace netif_rx {
namespace {

constexpr std::size_t kMaxMountinfoBytes = 8 << 20;
constexpr std::size_t kMaxBundles = 16384;

// The ids of the nsfs mounts: each mount point opened as this process sees
// it, else as pid 1 does (through <proc_root>/1/root, from a container);
// kept only when the file opened is the inode mountinfo named.
NetnsIds mount_ids(const std::map<std::uint32_t, std::string>& mount_points,
                   const std::string& proc_root) {
  NetnsIds ids;
  for (const auto& [inode, mount_point] : mount_points) {
    NetnsFileIdentity opened = open_netns_file(mount_point);
    if (opened.inum != inode) opened = open_netns_file(proc_root + "/1/root" + mount_point);
    if (opened.inum == inode) ids.note(inode, opened.id);
  }
  return ids;
}

}  // namespace

NodeScan scan_node(const AttributionConfig& config, std::uint32_t host_inum, BundleCache& bundles) {
  NodeScan scan;
  scan.host_inum = host_inum;
  if (const auto mountinfo = read_file(config.proc_root + "/1/mountinfo", kMaxMountinfoBytes)) {
    scan.named = parse_nsfs_mounts(*mountinfo);
    scan.ids = mount_ids(parse_nsfs_mount_points(*mountinfo), config.proc_root);
  }
  scan.bundles = scan_bundles(config.bundle_roots, kMaxBundles, scan.named, bundles);
  scan.ids.merge(scan.bundles.ids);
  if (config.processes) {
    scan.processes = scan_processes(config.proc_root, host_inum, config.max_processes);
    scan.ids.merge(scan.processes.ids);
  }
  scan.pod_logs = list_pod_log_folders(config.pod_logs_root, config.max_namespaces);
  scan.machines = scan_machines(config.machines_root, config.proc_root, host_inum, scan.ids);
  return scan;
}

}  // namespace netif_rx
