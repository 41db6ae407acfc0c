#include "owners/libpod_cgroup.h"

#include <cstddef>

namespace netif_rx {
namespace {

constexpr std::string_view kPrefix = "libpod-";
constexpr std::size_t kIdLength = 64;

bool is_lower_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

}  // namespace

std::optional<std::string> libpod_container_in_cgroup(std::string_view cgroup_text) {
  for (std::size_t at = cgroup_text.find(kPrefix); at != std::string_view::npos;
       at = cgroup_text.find(kPrefix, at + 1)) {
    // A whole path component: after '/' (or the line's start).
    if (at > 0 && cgroup_text[at - 1] != '/') continue;
    const std::string_view id = cgroup_text.substr(at + kPrefix.size(), kIdLength);
    if (id.size() != kIdLength) continue;
    bool hex = true;
    for (const char c : id) hex = hex && is_lower_hex(c);
    if (!hex) continue;
    const std::size_t end = at + kPrefix.size() + kIdLength;
    const std::string_view rest = cgroup_text.substr(end);
    if (rest.empty() || rest.front() == '\n' || rest.front() == '/' ||
        rest.substr(0, 6) == ".scope") {
      return std::string(id);
    }
  }
  return std::nullopt;
}

}  // namespace netif_rx
