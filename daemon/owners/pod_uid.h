// The pod UIDs in a /proc/<pid>/cgroup text, found anywhere in each path, as
// kubelet's cgroup drivers write them: cgroupfs (".../pod<uid>/<id>") and
// systemd (".../kubepods-burstable-pod<uid with _>.slice/..."), every QoS
// class, static pods' 32-hex UIDs (their config hash), behind any prefix (a
// cgroup namespace, a nested runtime): never anchored on "/kubepods".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netif_rx {

// The UID, dashes restored, when `text` starts with one ("<36 chars with - or
// _ at 8, 13, 18, 23>" or "<32 hex>"); nullopt otherwise.
std::optional<std::string> parse_pod_uid(std::string_view text);

// Every distinct pod UID of the cgroup file's lines (v1 and v2), in order of
// appearance. Empty when the process belongs to no pod.
std::vector<std::string> pod_uids_in_cgroup(std::string_view cgroup_text);

}  // namespace netif_rx
