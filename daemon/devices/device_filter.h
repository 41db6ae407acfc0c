// devices.include / devices.exclude: which devices are exported. Regular
// expressions (ECMAScript) compiled once, matched against the whole name.
#pragma once

#include <regex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config/config.h"

namespace netif_rx {

class DeviceFilter {
 public:
  // The expressions were validated with the configuration; an invalid one
  // here throws std::regex_error.
  explicit DeviceFilter(const DeviceFilterConfig& config = {});

  // True when `name` (the raw kernel name) is exported: no include list or
  // one include matches, and no exclude matches.
  bool exported(std::string_view name) const;
  bool empty() const { return include_.empty() && exclude_.empty(); }

 private:
  std::vector<std::regex> include_;
  std::vector<std::regex> exclude_;
};

// Remembers the filter's answer per name, so that a poll matches each name
// once; forget_unused() keeps it bounded by the names still in use.
class CachedDeviceFilter {
 public:
  explicit CachedDeviceFilter(DeviceFilter filter) : filter_(std::move(filter)) {}
  bool exported(const std::string& name);
  // Drops the names not asked about since the last call.
  void forget_unused();

 private:
  struct Entry {
    bool exported = false;
    bool used = false;
  };
  DeviceFilter filter_;
  std::unordered_map<std::string, Entry> cache_;
};

}  // namespace netif_rx
