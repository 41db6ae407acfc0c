#include "devices/device_filter.h"

namespace netif_rx {
namespace {

std::vector<std::regex> compile(const std::vector<std::string>& expressions) {
  std::vector<std::regex> out;
  out.reserve(expressions.size());
  for (const auto& text : expressions) {
    out.emplace_back(text, std::regex::ECMAScript | std::regex::optimize);
  }
  return out;
}

bool any_full_match(const std::vector<std::regex>& expressions, std::string_view name) {
  for (const auto& expression : expressions) {
    if (std::regex_match(name.begin(), name.end(), expression)) return true;
  }
  return false;
}

}  // namespace

DeviceFilter::DeviceFilter(const DeviceFilterConfig& config)
    : include_(compile(config.include)), exclude_(compile(config.exclude)) {}

bool DeviceFilter::exported(std::string_view name) const {
  if (!include_.empty() && !any_full_match(include_, name)) return false;
  return !any_full_match(exclude_, name);
}

bool CachedDeviceFilter::exported(const std::string& name) {
  if (filter_.empty()) return true;
  auto [it, inserted] = cache_.try_emplace(name);
  if (inserted) it->second.exported = filter_.exported(name);
  it->second.used = true;
  return it->second.exported;
}

void CachedDeviceFilter::forget_unused() {
  std::erase_if(cache_, [](const auto& entry) { return !entry.second.used; });
  for (auto& [name, entry] : cache_) entry.used = false;
}

}  // namespace netif_rx
