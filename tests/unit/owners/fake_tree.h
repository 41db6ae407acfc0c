// A node's files under a temporary folder, for the attribution's sources:
// proc entries (ns/net as the kernel's "net:[N]" symlink, cgroup), mountinfo,
// runtime bundles and kubelet's pod log folders. Removed with the object.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace netif_rx {

class FakeTree {
 public:
  FakeTree() {
    static int serial = 0;
    root_ = std::filesystem::temp_directory_path() /
            ("netif_rx_owners_test." + std::to_string(::getpid()) + "." + std::to_string(serial++));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  ~FakeTree() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  FakeTree(const FakeTree&) = delete;
  FakeTree& operator=(const FakeTree&) = delete;

  std::string path(const std::string& relative) const { return (root_ / relative).string(); }

  void write(const std::string& relative, const std::string& text) const {
    const auto file = root_ / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text;
  }

  // proc/<pid>/ns/net -> net:[inode], proc/<pid>/cgroup
  void process(int pid, std::uint32_t inode, const std::string& cgroup) const {
    const auto dir = root_ / "proc" / std::to_string(pid);
    std::filesystem::create_directories(dir / "ns");
    std::filesystem::create_symlink("net:[" + std::to_string(inode) + "]", dir / "ns" / "net");
    write("proc/" + std::to_string(pid) + "/cgroup", cgroup);
  }

 private:
  std::filesystem::path root_;
};

}  // namespace netif_rx
