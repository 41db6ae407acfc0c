#include "owners/bundle_cache.h"

#include "util/read_file.h"

namespace netif_rx {

std::optional<BundleConfig> BundleCache::get(const std::string& path, bool& readable,
                                             Parser parse) {
  struct stat st {};
  readable = ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  if (!readable) return std::nullopt;
  const auto it = entries_.find(path);
  if (it != entries_.end() && it->second.inode == st.st_ino && it->second.size == st.st_size &&
      it->second.mtime.tv_sec == st.st_mtim.tv_sec &&
      it->second.mtime.tv_nsec == st.st_mtim.tv_nsec) {
    it->second.seen = true;
    return it->second.config;
  }
  const auto text = read_file(path, kMaxBundleConfigBytes);
  readable = text.has_value();
  if (!readable) return std::nullopt;
  ++parses_;
  Entry entry{st.st_ino, st.st_size, st.st_mtim, parse(*text), true};
  auto config = entry.config;
  entries_[path] = std::move(entry);
  return config;
}

void BundleCache::sweep() {
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.seen) {
      it->second.seen = false;
      ++it;
    } else {
      it = entries_.erase(it);
    }
  }
}

}  // namespace netif_rx
