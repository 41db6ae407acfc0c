#include "test_namespaces.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "command.h"
#include "lifecycle_support.h"

namespace netif_rx::test {

namespace {
constexpr int kAttemptsPerSearch = 60;
constexpr auto kSearchTime = std::chrono::seconds(3);
}  // namespace

TestNamespaces::~TestNamespaces() {
  for (const auto& name : names_) run_command({"ip", "netns", "del", name});
}

std::pair<std::string, std::uint32_t> TestNamespaces::add() {
  const std::string name = prefix_ + std::to_string(next_++);
  run_command({"ip", "netns", "del", name});  // a leftover of a crashed run
  if (run_command({"ip", "netns", "add", name}).exit_code != 0) return {name, 0};
  names_.push_back(name);
  return {name, netns_inode(name)};
}

void TestNamespaces::remove(const std::string& name) {
  run_command({"ip", "netns", "del", name});
  std::erase(names_, name);
}

void TestNamespaces::remove_all_but(const std::string& kept) {
  const std::vector<std::string> names = names_;
  for (const auto& name : names) {
    if (name != kept) remove(name);
  }
}

std::string namespace_with_inode(TestNamespaces& namespaces, std::uint32_t inode, int& attempts) {
  const auto deadline = std::chrono::steady_clock::now() + kSearchTime;
  for (int i = 0; i < kAttemptsPerSearch && std::chrono::steady_clock::now() < deadline; ++i) {
    const auto [name, got] = namespaces.add();
    ++attempts;
    if (got == inode) return name;
    if (got == 0 || got > inode) {
      namespaces.remove(name);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  return "";
}

}  // namespace netif_rx::test
