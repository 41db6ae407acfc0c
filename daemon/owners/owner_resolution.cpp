#include "owners/owner_resolution.h"

#include <optional>

namespace netif_rx {
namespace {

// Pod names by UID: kubelet's log folders, then the runtime's annotations.
void name_pod(NetnsOwner& owner, const NodeScan& scan) {
  if (const auto it = scan.pod_logs.by_uid.find(owner.pod_uid); it != scan.pod_logs.by_uid.end()) {
    owner.namespace_name = it->second.namespace_name;
    owner.pod = it->second.pod;
    return;
  }
  for (const auto& [inode, bundle_owner] : scan.bundles.owners) {
    if (bundle_owner.kind == OwnerKind::pod && bundle_owner.pod_uid == owner.pod_uid) {
      owner.namespace_name = bundle_owner.namespace_name;
      owner.pod = bundle_owner.pod;
      return;
    }
  }
}

// The podman container that owns a namespace whose processes are podman's:
// each process's container stands for its pod's infra container.
std::optional<NetnsOwner> libpod_owner(std::uint32_t inum, const NodeScan& scan) {
  const auto ids = scan.processes.libpod_ids.find(inum);
  if (ids == scan.processes.libpod_ids.end()) return std::nullopt;
  std::optional<NetnsOwner> owner;
  for (const std::string& id : ids->second) {
    const auto named = scan.bundles.libpod_owners.find(id);
    if (named == scan.bundles.libpod_owners.end()) continue;
    if (owner && owner->container != named->second) {
      return NetnsOwner{OwnerKind::ambiguous, {}, {}, {}, {}, {}};
    }
    owner = NetnsOwner{};
    owner->kind = OwnerKind::container;
    owner->container = named->second;
  }
  return owner;
}

}  // namespace

NetnsOwner resolve_owner(std::uint32_t inum, const NodeScan& scan) {
  NetnsOwner owner;
  if (inum == scan.host_inum) {
    owner.kind = OwnerKind::host;
    return owner;
  }
  const auto named = scan.named.find(inum);
  if (const auto it = scan.bundles.owners.find(inum); it != scan.bundles.owners.end()) {
    owner = it->second;
  } else if (const auto machine = scan.machines.find(inum); machine != scan.machines.end()) {
    owner = machine->second;
  } else if (const auto uids = scan.processes.pod_uids.find(inum);
             uids != scan.processes.pod_uids.end() && !uids->second.empty()) {
    if (uids->second.size() > 1) {
      owner.kind = OwnerKind::ambiguous;
    } else {
      owner.kind = OwnerKind::pod;
      owner.pod_uid = uids->second.front();
      name_pod(owner, scan);
    }
  } else if (auto podman = libpod_owner(inum, scan)) {
    owner = std::move(*podman);
  } else if (named != scan.named.end()) {
    owner.kind = OwnerKind::named;
  }
  if (named != scan.named.end()) owner.netns_name = named->second;
  return owner;
}

}  // namespace netif_rx
