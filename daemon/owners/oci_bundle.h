// What a runtime's OCI bundle (config.json) says about a container's network
// namespace: containerd's task bundles and CRI-O's userdata. Parsed with a
// bounded streaming reader: only the network namespace's path and the
// Kubernetes annotations are kept, nesting deeper than kMaxBundleDepth is
// refused, and the caller bounds the text's size.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "owners/json_path_reader.h"
#include "owners/netns_owner.h"

namespace netif_rx {

inline constexpr std::size_t kMaxBundleDepth = kMaxJsonDepth;
inline constexpr std::size_t kMaxBundleConfigBytes = 4 << 20;

struct BundleConfig {
  // linux.namespaces has a "network" entry: the container has a namespace of
  // its own (with `netns_path` when it joins an existing one, such as the
  // sandbox's pinned /run/netns/cni-*). No entry: the host's (hostNetwork).
  bool own_network = false;
  std::string netns_path;
  // The annotations containerd's CRI plugin and CRI-O write.
  std::string container_type;  // "sandbox" or "container"
  std::string pod_namespace;
  std::string pod_name;
  std::string pod_uid;
  std::string container_name;
  // podman's (libpod's) containers: the manager annotation is "libpod", and a
  // container of a pod names the pod's infra container as its sandbox.
  std::string manager;
  std::string sandbox_id;
};

// Nullopt for text that is not a JSON object (or nests too deep).
std::optional<BundleConfig> parse_bundle_config(std::string_view json_text);

// The owner a bundle names: kind pod with the pod's names when it carries
// Kubernetes annotations, else kind container named by its annotation, else
// `bundle_name` (the runtime's name for the bundle's id, or the id).
NetnsOwner owner_of_bundle(const BundleConfig& bundle, std::string_view bundle_name);

}  // namespace netif_rx
