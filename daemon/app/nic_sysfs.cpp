#include "app/nic_sysfs.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>

namespace netif_rx {
namespace {

constexpr std::size_t kMaxEntries = 65536;
constexpr std::size_t kMaxLink = 4096;

struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};
using Dir = std::unique_ptr<DIR, DirCloser>;

// Entry names of `path` (without . and ..), at most kMaxEntries.
std::vector<std::string> entries(const std::string& path, std::string* error) {
  std::vector<std::string> names;
  const Dir dir(::opendir(path.c_str()));
  if (!dir) {
    if (error != nullptr) *error = path + ": " + std::strerror(errno);
    return names;
  }
  while (names.size() < kMaxEntries) {
    const dirent* entry = ::readdir(dir.get());
    if (entry == nullptr) break;
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  return names;
}

// The last component of the link at `path`; empty when it is not a link.
std::string link_basename(const std::string& path) {
  std::array<char, kMaxLink> target{};
  const ssize_t length = ::readlink(path.c_str(), target.data(), target.size());
  if (length <= 0 || static_cast<std::size_t>(length) >= target.size()) return "";
  const std::string text(target.data(), static_cast<std::size_t>(length));
  const std::size_t slash = text.rfind('/');
  return slash == std::string::npos ? text : text.substr(slash + 1);
}

std::size_t count_rx_queues(const std::string& queues) {
  const std::vector<std::string> names = entries(queues, nullptr);
  return static_cast<std::size_t>(std::count_if(
      names.begin(), names.end(), [](const auto& name) { return name.starts_with("rx-"); }));
}

}  // namespace

NicScan scan_nics(const std::string& class_net, std::size_t max_nics) {
  NicScan scan;
  std::vector<std::string> names = entries(class_net, &scan.error);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const std::string device = class_net + "/" + name;
    struct stat info {};
    if (::stat((device + "/device").c_str(), &info) != 0) continue;  // no parent: virtual
    if (scan.nics.size() == max_nics) {
      ++scan.left_out;
      continue;
    }
    scan.nics.push_back(
        {name, link_basename(device + "/device/driver"), count_rx_queues(device + "/queues")});
  }
  return scan;
}

}  // namespace netif_rx
