// Owners of network namespaces from the container runtimes' bundles:
// containerd's task bundles (<root>/<id>/config.json, for Kubernetes
// /run/containerd/io.containerd.runtime.v2.task/k8s.io, k3s under
// /run/k3s/containerd), CRI-O's (<root>/<id>/userdata/config.json under
// /run/containers/storage/overlay-containers), podman's (the same layout under
// /var/lib/containers/storage/overlay-containers, named by that root's
// containers.json) and docker's containers (<root>/<id>/config.v2.json under
// /var/lib/docker/containers). No capability is needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "owners/bundle_cache.h"
#include "owners/netns_ids.h"
#include "owners/netns_owner.h"

namespace netif_rx {

struct BundleScan {
  std::map<std::uint32_t, NetnsOwner> owners;  // by namespace inode
  NetnsIds ids;                                // of the namespace files opened
  std::size_t bundles = 0;                     // config.json files read
  std::size_t unreadable = 0;                  // unparsable, or their namespace path not found
  std::size_t dropped = 0;                     // bundles beyond max_bundles
  // podman's containers: id → the name of the container that owns its
  // namespace (a pod's infra container, else itself), from containers.json.
  std::map<std::string, std::string> libpod_owners;
};

// A bundle's namespace path is used when it is a namespace (nsfs); else
// `named` (inode → nsfs mount name) finds it by its last component (the
// runtime's /run/netns/cni-* outside a container's mounts, or mounted there
// after the container started without mount propagation).
// `cache` keeps the parsed files between scans (swept at the end of each).
BundleScan scan_bundles(const std::vector<std::string>& roots, std::size_t max_bundles,
                        const std::map<std::uint32_t, std::string>& named, BundleCache& cache);

}  // namespace netif_rx
