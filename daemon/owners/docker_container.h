// What docker's container state (/var/lib/docker/containers/<id>/config.v2.json)
// says about a container's network namespace: NetworkSettings.SandboxKey
// (/var/run/docker/netns/<id>; "default" for the host's), its name, and the
// Kubernetes labels cri-dockerd sets. Parsed with the bounded JSON reader.
#pragma once

#include <optional>
#include <string_view>

#include "owners/oci_bundle.h"

namespace netif_rx {

// As a BundleConfig (own_network when the container has a sandbox key);
// nullopt for text that is not a JSON object (or nests too deep, or is over
// kMaxBundleConfigBytes).
std::optional<BundleConfig> parse_docker_config(std::string_view json_text);

}  // namespace netif_rx
