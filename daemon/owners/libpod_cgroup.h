// podman's (libpod's) container in a /proc/<pid>/cgroup text: its cgroup is
// named after the container's id, "libpod-<64 hex>" (the cgroupfs manager,
// under libpod_parent/[<pod id>/]) or "libpod-<64 hex>.scope" (the systemd
// manager, under machine.slice/[machine-libpod_pod_<pod id>.slice/]), behind
// any prefix. conmon's "libpod-conmon-<id>" is not the container.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace netif_rx {

// The first libpod container id of the cgroup file's lines; nullopt when the
// process belongs to no podman container.
std::optional<std::string> libpod_container_in_cgroup(std::string_view cgroup_text);

}  // namespace netif_rx
