#include "owners/node_scan.h"

#include "owners/machines.h"
#include "owners/nsfs_mounts.h"
#include "util/read_file.h"

namespace netif_rx {
namespace {

constexpr std::size_t kMaxMountinfoBytes = 8 << 20;
constexpr std::size_t kMaxBundles = 16384;

}  // namespace

NodeScan scan_node(const AttributionConfig& config, std::uint32_t host_inum, BundleCache& bundles) {
  NodeScan scan;
  scan.host_inum = host_inum;
  if (const auto mountinfo = read_file(config.proc_root + "/1/mountinfo", kMaxMountinfoBytes)) {
    scan.named = parse_nsfs_mounts(*mountinfo);
  }
  scan.bundles = scan_bundles(config.bundle_roots, kMaxBundles, scan.named, bundles);
  if (config.processes) {
    scan.processes = scan_processes(config.proc_root, host_inum, config.max_processes);
  }
  scan.pod_logs = list_pod_log_folders(config.pod_logs_root, config.max_namespaces);
  scan.machines = scan_machines(config.machines_root, config.proc_root, host_inum);
  return scan;
}

}  // namespace netif_rx
