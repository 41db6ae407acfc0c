#include "owners/pod_logs.h"

#include <dirent.h>

#include <memory>

#include "owners/pod_uid.h"

namespace netif_rx {

std::optional<std::pair<std::string, PodName>> parse_pod_log_folder(std::string_view name) {
  const auto first = name.find('_');
  if (first == std::string_view::npos || first == 0) return std::nullopt;
  const auto second = name.find('_', first + 1);
  if (second == std::string_view::npos || second == first + 1) return std::nullopt;
  const std::string_view uid_text = name.substr(second + 1);
  auto uid = parse_pod_uid(uid_text);
  // The whole rest is the UID (dashes as kubelet writes them).
  if (!uid || (uid->size() != uid_text.size())) return std::nullopt;
  return std::pair{*uid, PodName{std::string(name.substr(0, first)),
                                 std::string(name.substr(first + 1, second - first - 1))}};
}

PodLogNames list_pod_log_folders(const std::string& root, std::size_t max_pods) {
  PodLogNames out;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(root.c_str()), ::closedir);
  if (!dir) return out;
  while (const dirent* entry = ::readdir(dir.get())) {
    auto parsed = parse_pod_log_folder(entry->d_name);
    if (!parsed) continue;
    if (out.by_uid.size() >= max_pods) {
      ++out.dropped;
      continue;
    }
    out.by_uid.insert(std::move(*parsed));
  }
  return out;
}

}  // namespace netif_rx
