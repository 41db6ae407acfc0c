// Parsed bundle configurations, kept between scans: a runtime writes a
// bundle's config.json once, so a scan parses only the files it has not seen
// (by path, inode, size and modification time). Entries of bundles a scan no
// longer finds are forgotten at its end. Used by the attribution's thread only.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "owners/oci_bundle.h"

namespace netif_rx {

class BundleCache {
 public:
  using Parser = std::optional<BundleConfig> (*)(std::string_view);

  // The bundle at `path` (read and parsed by `parse` when new or changed);
  // nullopt when it can't be read (`readable` false) or parsed (`readable`
  // true).
  std::optional<BundleConfig> get(const std::string& path, bool& readable,
                                  Parser parse = parse_bundle_config);
  // Forgets the bundles not asked for since the last call.
  void sweep();
  std::size_t size() const { return entries_.size(); }
  std::size_t parses() const { return parses_; }  // files parsed so far

 private:
  struct Entry {
    ino_t inode = 0;
    off_t size = 0;
    struct timespec mtime {};
    std::optional<BundleConfig> config;
    bool seen = true;
  };
  std::map<std::string, Entry> entries_;
  std::size_t parses_ = 0;
};

}  // namespace netif_rx
