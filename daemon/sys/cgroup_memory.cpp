#include "sys/cgroup_memory.h"

#include <charconv>
#include <sstream>
#include <vector>

#include "util/read_file.h"

namespace netif_rx {
namespace {

// v1 reports "no limit" as the page counter's maximum (about 2^63).
constexpr std::uint64_t kNoLimitAbove = std::uint64_t{1} << 62;
constexpr std::size_t kMaxCgroupFileBytes = 64 * 1024;
constexpr std::size_t kMaxLimitFileBytes = 64;

// A limit file's value: bytes, or nullopt for "max", no limit, or text that
// is not a number.
std::optional<std::uint64_t> limit_value(const std::string& text) {
  std::size_t end = text.find_first_of(" \n");
  if (end == std::string::npos) end = text.size();
  std::uint64_t value = 0;
  const auto [at, error] = std::from_chars(text.data(), text.data() + end, value);
  if (error != std::errc() || at != text.data() + end || end == 0) return std::nullopt;
  if (value >= kNoLimitAbove) return std::nullopt;
  return value;
}

// A cgroup path of /proc/self/cgroup: absolute, without "." or ".." parts.
bool plain_path(const std::string& path) {
  if (path.empty() || path[0] != '/') return false;
  std::stringstream parts(path);
  std::string part;
  while (std::getline(parts, part, '/')) {
    if (part == "." || part == "..") return false;
  }
  return true;
}

std::string parent_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

struct Hierarchy {
  std::string dir;   // the hierarchy's mount point
  std::string file;  // the limit's file name
  std::string path;  // this process's cgroup in it
};

// The hierarchy that holds the memory controller: a v1 one naming it, else
// the v2 one.
std::optional<Hierarchy> memory_hierarchy(const std::string& proc_self_cgroup,
                                          const std::string& root) {
  std::optional<Hierarchy> unified;
  std::stringstream lines(proc_self_cgroup);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t first = line.find(':');
    const std::size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string id = line.substr(0, first);
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (!plain_path(path)) continue;
    if (id == "0" && controllers.empty()) {
      unified = Hierarchy{root, "memory.max", path};
      continue;
    }
    std::stringstream names(controllers);
    std::string name;
    while (std::getline(names, name, ',')) {
      if (name == "memory") return Hierarchy{root + "/memory", "memory.limit_in_bytes", path};
    }
  }
  return unified;
}

}  // namespace

std::optional<CgroupMemoryLimit> cgroup_memory_limit(const std::string& proc_self_cgroup,
                                                     const std::string& root) {
  const std::optional<Hierarchy> hierarchy = memory_hierarchy(proc_self_cgroup, root);
  if (!hierarchy) return std::nullopt;
  std::optional<CgroupMemoryLimit> least;
  std::string path = hierarchy->path;
  // At most as many steps as the path has parts.
  for (std::size_t step = 0; step <= path.size(); ++step) {
    const std::string dir = hierarchy->dir + (path == "/" ? "" : path);
    const std::string file = dir + "/" + hierarchy->file;
    if (const auto text = read_file(file, kMaxLimitFileBytes)) {
      if (const auto bytes = limit_value(*text); bytes && (!least || *bytes < least->bytes))
        least = CgroupMemoryLimit{*bytes, file};
    }
    if (path == "/") break;
    path = parent_of(path);
  }
  return least;
}

std::optional<CgroupMemoryLimit> own_cgroup_memory_limit() {
  const auto text = read_file("/proc/self/cgroup", kMaxCgroupFileBytes);
  if (!text) return std::nullopt;
  return cgroup_memory_limit(*text);
}

}  // namespace netif_rx
