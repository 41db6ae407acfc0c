// Named network namespaces a test creates outside TestNetwork, to delete and
// re-create them itself (inode reuse), and the search for a namespace that
// gets a dead one's inode number.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace netif_rx::test {

// `ip netns` namespaces of a test, deleted when the object goes, also when
// the test fails.
class TestNamespaces {
 public:
  explicit TestNamespaces(std::string prefix) : prefix_(std::move(prefix)) {}
  ~TestNamespaces();
  TestNamespaces(const TestNamespaces&) = delete;
  TestNamespaces& operator=(const TestNamespaces&) = delete;

  // A new namespace and its inode number (0 when it could not be made).
  std::pair<std::string, std::uint32_t> add();
  void remove(const std::string& name);
  void remove_all_but(const std::string& kept);

 private:
  std::string prefix_;
  std::vector<std::string> names_;
  int next_ = 0;
};

// Creates namespaces until one has inode number `inode`. A namespace with a
// lower number filled a hole below it and is kept (the next one gets a higher
// number); one with a higher number means the dead namespace's number is not
// free yet: deleted again. Returns the namespace's name, "" if none got it
// within 60 namespaces and 3 s; `attempts` counts the namespaces created.
std::string namespace_with_inode(TestNamespaces& namespaces, std::uint32_t inode, int& attempts);

}  // namespace netif_rx::test
