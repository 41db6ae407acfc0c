// Pod names from kubelet's log folders: /var/log/pods/<namespace>_<pod>_<uid>.
// Namespace and pod names are DNS labels and subdomains: they never hold '_'.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace netif_rx {

struct PodName {
  std::string namespace_name;
  std::string pod;
  bool operator==(const PodName&) const = default;
};

// The folder name's pod and UID; nullopt when it is not "<ns>_<pod>_<uid>".
std::optional<std::pair<std::string, PodName>> parse_pod_log_folder(std::string_view name);

struct PodLogNames {
  std::map<std::string, PodName> by_uid;
  std::size_t dropped = 0;  // folders beyond `max_pods`
};

// Lists `root` (at most `max_pods` pods); an absent root gives none.
PodLogNames list_pod_log_folders(const std::string& root, std::size_t max_pods);

}  // namespace netif_rx
