#include "owners/bundle_scan.h"

#include <dirent.h>

#include <memory>

#include "owners/container_names.h"
#include "owners/docker_container.h"
#include "owners/netns_file.h"
#include "owners/oci_bundle.h"
#include "util/read_file.h"

namespace netif_rx {
namespace {

// The namespace a path names: the path itself when it is a namespace (nsfs:
// a bind mount, /proc/<pid>/ns/net). A path that is not one (the empty file
// under a mount point this mount namespace does not see: a host path mounted
// without propagation) is looked up by name among the nsfs mounts.
// The id of a namespace file opened goes to `ids`.
std::uint32_t inode_of(const std::string& path, const std::map<std::uint32_t, std::string>& named,
                       NetnsIds& ids) {
  if (const NetnsFileIdentity opened = open_netns_file(path); opened.inum != 0) {
    ids.note(opened.inum, opened.id);
    return opened.inum;
  }
  const auto slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  for (const auto& [inode, mount_name] : named) {
    if (mount_name == name) return inode;
  }
  return 0;
}

// Two bundles naming one namespace: the same pod's agree; else ambiguous.
void merge(std::map<std::uint32_t, NetnsOwner>& owners, std::uint32_t inode, NetnsOwner owner) {
  auto [it, inserted] = owners.emplace(inode, owner);
  if (inserted || it->second == owner) return;
  if (it->second.kind == OwnerKind::pod && owner.kind == OwnerKind::pod &&
      it->second.pod_uid == owner.pod_uid) {
    return;
  }
  if (it->second.kind == OwnerKind::container && owner.kind == OwnerKind::pod) {
    it->second = std::move(owner);  // a pod's sandbox beats a bare container
    return;
  }
  if (it->second.kind == OwnerKind::pod && owner.kind == OwnerKind::container) return;
  it->second = NetnsOwner{OwnerKind::ambiguous, {}, {}, {}, {}, {}};
}

}  // namespace

BundleScan scan_bundles(const std::vector<std::string>& roots, std::size_t max_bundles,
                        const std::map<std::uint32_t, std::string>& named, BundleCache& cache) {
  BundleScan out;
  for (const std::string& root : roots) {
    std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(root.c_str()), ::closedir);
    if (!dir) continue;
    // podman's storage root names its containers (none elsewhere).
    std::map<std::string, std::string> names;
    if (const auto index = read_file(root + "/containers.json", kMaxContainerIndexBytes)) {
      names = parse_container_names(*index);
    }
    while (const dirent* entry = ::readdir(dir.get())) {
      const std::string id = entry->d_name;
      if (id == "." || id == "..") continue;
      if (out.bundles + out.unreadable >= max_bundles) {
        ++out.dropped;
        continue;
      }
      bool readable = false;
      auto bundle = cache.get(root + "/" + id + "/config.json", readable);
      if (!readable) bundle = cache.get(root + "/" + id + "/userdata/config.json", readable);
      if (!readable) {
        bundle = cache.get(root + "/" + id + "/config.v2.json", readable, parse_docker_config);
      }
      if (!readable) continue;  // not a bundle (yet): containerd writes it after the folder
      if (!bundle) {
        ++out.unreadable;
        continue;
      }
      ++out.bundles;
      if (bundle->manager == "libpod") {
        const std::string& owner_id = bundle->sandbox_id.empty() ? id : bundle->sandbox_id;
        const auto owner_name = names.find(owner_id);
        out.libpod_owners[id] = owner_name == names.end() ? owner_id : owner_name->second;
      }
      // No network entry: the host's namespace (hostNetwork), never a pod's.
      // An entry without a path: a namespace the runtime created, reached
      // through the processes instead.
      if (!bundle->own_network || bundle->netns_path.empty()) continue;
      // A container of a podman pod joins its infra container's namespace
      // (through /proc/<pid>/ns/net): the infra's bundle names it.
      if (bundle->manager == "libpod" && !bundle->sandbox_id.empty()) continue;
      const std::uint32_t inode = inode_of(bundle->netns_path, named, out.ids);
      if (inode == 0) {
        ++out.unreadable;
        continue;
      }
      const auto name = names.find(id);
      merge(out.owners, inode, owner_of_bundle(*bundle, name == names.end() ? id : name->second));
    }
  }
  cache.sweep();
  return out;
}

}  // namespace netif_rx
