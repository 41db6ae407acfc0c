// Who a network namespace belongs to, as the node's own files tell: the
// labels of netif_rx_netns_info. Empty strings are labels left out.
#pragma once

#include <string>
#include <string_view>

namespace netif_rx {

enum class OwnerKind { host, pod, container, named, ambiguous, unknown };

struct NetnsOwner {
  OwnerKind kind = OwnerKind::unknown;
  std::string namespace_name;  // the pod's Kubernetes namespace
  std::string pod;
  std::string pod_uid;
  std::string container;   // a container that is not part of a pod (or the bundle id)
  std::string netns_name;  // the name of an nsfs mount: `ip netns`, cni-*, netns-*

  bool operator==(const NetnsOwner&) const = default;
};

std::string_view to_string(OwnerKind kind);

}  // namespace netif_rx
