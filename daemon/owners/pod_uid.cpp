#include "owners/pod_uid.h"

#include <algorithm>

namespace netif_rx {
namespace {

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// A UID ends a path component or a systemd unit name ("...pod<uid>.slice").
bool ends_component(std::string_view text, std::size_t at) {
  return at == text.size() || text[at] == '/' || text[at] == '.' || text[at] == '\n';
}

}  // namespace

std::optional<std::string> parse_pod_uid(std::string_view text) {
  if (text.size() >= 36) {
    std::string uid(text.substr(0, 36));
    bool valid = true;
    for (std::size_t i = 0; i < uid.size() && valid; ++i) {
      if (i == 8 || i == 13 || i == 18 || i == 23) {
        valid = uid[i] == '-' || uid[i] == '_';
        uid[i] = '-';
      } else {
        valid = is_hex(uid[i]);
      }
    }
    if (valid && ends_component(text, 36)) return uid;
  }
  if (text.size() >= 32 && std::all_of(text.begin(), text.begin() + 32, is_hex) &&
      ends_component(text, 32)) {
    return std::string(text.substr(0, 32));
  }
  return std::nullopt;
}

std::vector<std::string> pod_uids_in_cgroup(std::string_view cgroup_text) {
  std::vector<std::string> uids;
  for (std::size_t at = cgroup_text.find("pod"); at != std::string_view::npos;
       at = cgroup_text.find("pod", at + 3)) {
    // "pod" starts a component ("/pod<uid>") or follows a dash
    // ("kubepods-besteffort-pod<uid>.slice").
    if (at > 0 && cgroup_text[at - 1] != '/' && cgroup_text[at - 1] != '-') continue;
    auto uid = parse_pod_uid(cgroup_text.substr(at + 3));
    if (uid && std::find(uids.begin(), uids.end(), *uid) == uids.end()) {
      uids.push_back(std::move(*uid));
    }
  }
  return uids;
}

}  // namespace netif_rx
