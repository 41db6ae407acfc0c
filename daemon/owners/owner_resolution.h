// Combines what the node's sources say into one owner per namespace, most
// exact first: the host is "host"; a runtime bundle; a machine registered
// with systemd-machined whose leader is in it; the pod UIDs of its
// processes (two or more pods: "ambiguous", never guessed); the podman
// container of its processes, named from podman's bundles (a pod's infra
// container; two owners: "ambiguous"); an nsfs mount's name ("named"); else
// "unknown". The mount's name is kept on every kind
// but host.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "owners/bundle_scan.h"
#include "owners/netns_ids.h"
#include "owners/netns_owner.h"
#include "owners/pod_logs.h"
#include "owners/process_scan.h"

namespace netif_rx {

// One scan of the node's sources.
struct NodeScan {
  std::uint32_t host_inum = 0;
  std::map<std::uint32_t, std::string> named;  // nsfs mounts
  BundleScan bundles;
  ProcessScan processes;
  PodLogNames pod_logs;
  std::map<std::uint32_t, NetnsOwner> machines;  // systemd-machined's containers
  // The ids of every namespace file the scan opened (Linux >= 6.18): which
  // namespace each inode was while the scan ran.
  NetnsIds ids;
};

NetnsOwner resolve_owner(std::uint32_t inum, const NodeScan& scan);

}  // namespace netif_rx
