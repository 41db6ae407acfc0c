#include "owners/nsfs_mounts.h"

#include <charconv>
#include <vector>

namespace netif_rx {
namespace {

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size()) {
      const std::string_view digits = text.substr(i + 1, 3);
      unsigned value = 0;
      bool octal = true;
      for (char c : digits) {
        octal = octal && c >= '0' && c <= '7';
        value = value * 8 + static_cast<unsigned>(c - '0');
      }
      if (octal && value < 256) {
        out.push_back(static_cast<char>(value));
        i += 3;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (at < line.size()) {
    const auto end = line.find(' ', at);
    const auto stop = end == std::string_view::npos ? line.size() : end;
    if (stop > at) out.push_back(line.substr(at, stop - at));
    at = stop + 1;
  }
  return out;
}

}  // namespace

std::uint32_t parse_net_link(std::string_view text) {
  constexpr std::string_view prefix = "net:[";
  if (text.size() < prefix.size() + 2 || text.substr(0, prefix.size()) != prefix ||
      text.back() != ']') {
    return 0;
  }
  const std::string_view digits = text.substr(prefix.size(), text.size() - prefix.size() - 1);
  std::uint32_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size()) return 0;
  return value;
}

std::map<std::uint32_t, std::string> parse_nsfs_mount_points(std::string_view mountinfo_text) {
  std::map<std::uint32_t, std::string> out;
  std::size_t at = 0;
  while (at < mountinfo_text.size()) {
    auto end = mountinfo_text.find('\n', at);
    if (end == std::string_view::npos) end = mountinfo_text.size();
    const auto line = fields(mountinfo_text.substr(at, end - at));
    at = end + 1;
    // id parent major:minor root mount-point options [optional...] - fstype source super
    std::size_t dash = 6;
    while (dash < line.size() && line[dash] != "-") ++dash;
    if (line.size() < 5 || dash + 1 >= line.size() || line[dash + 1] != "nsfs") continue;
    const std::uint32_t inode = parse_net_link(line[3]);
    if (inode == 0) continue;
    out.emplace(inode, unescape(line[4]));
  }
  return out;
}

std::map<std::uint32_t, std::string> parse_nsfs_mounts(std::string_view mountinfo_text) {
  std::map<std::uint32_t, std::string> out;
  for (auto& [inode, mount_point] : parse_nsfs_mount_points(mountinfo_text)) {
    const auto slash = mount_point.rfind('/');
    std::string name = slash == std::string::npos ? mount_point : mount_point.substr(slash + 1);
    if (!name.empty()) out.emplace(inode, std::move(name));
  }
  return out;
}

}  // namespace netif_rx
