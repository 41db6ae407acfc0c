#include "continuity/bpffs_directory.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>

#include "util/errno_text.h"
#include "util/log.h"

namespace netif_rx {
namespace {

struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};

}  // namespace

std::vector<std::string> list_directory(const std::string& directory) {
  std::vector<std::string> names;
  std::unique_ptr<DIR, DirCloser> dir(::opendir(directory.c_str()));
  if (!dir) return names;
  while (const dirent* entry = ::readdir(dir.get())) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

void remove_directory(const std::string& directory) {
  for (const auto& name : list_directory(directory)) {
    const std::string path = directory + "/" + name;
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
      log::warn("cannot remove a pin", {{"path", path}, {"err", errno_text(errno)}});
  }
  if (::rmdir(directory.c_str()) != 0 && errno != ENOENT)
    log::warn("cannot remove a pin directory", {{"path", directory}, {"err", errno_text(errno)}});
}

bool is_layout_directory(const std::string& name) {
  return name.size() > 1 && name[0] == 'v' &&
         std::all_of(name.begin() + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace netif_rx
