#include "owners/netns_file.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "util/unique_fd.h"

namespace netif_rx {
namespace {

constexpr int kSoNetnsCookie = 71;  // SO_NETNS_COOKIE (Linux 5.14)

TEST(NetnsFile, OwnNamespaceFileHasItsInode) {
  struct stat st {};
  ASSERT_EQ(::stat("/proc/self/ns/net", &st), 0);
  const NetnsFileIdentity identity = netns_link_identity("/proc/self/ns/net");
  EXPECT_EQ(identity.inum, static_cast<std::uint32_t>(st.st_ino));
  EXPECT_EQ(open_netns_file("/proc/self/ns/net").inum, identity.inum);
}

// Where the kernel has both, NS_GET_ID is the namespace's cookie, which is
// what the probe's salt is taken from.
TEST(NetnsFile, TheIdIsTheNamespaceCookie) {
  const NetnsFileIdentity identity = open_netns_file("/proc/self/ns/net");
  const UniqueFd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(sock.valid());
  std::uint64_t cookie = 0;
  socklen_t size = sizeof cookie;
  const bool has_cookie = ::getsockopt(sock.get(), SOL_SOCKET, kSoNetnsCookie, &cookie, &size) == 0;
  if (!identity.id || !has_cookie) {
    GTEST_SKIP() << "the kernel lacks NS_GET_ID (Linux 6.18) or SO_NETNS_COOKIE (5.14)";
  }
  EXPECT_EQ(*identity.id, cookie);
}

TEST(NetnsFile, OtherFilesAreNoNamespace) {
  const std::string dir = ::testing::TempDir() + "netns_file_test." + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(open_netns_file(fifo).inum, 0U);      // O_PATH: never opened
  EXPECT_EQ(netns_link_identity(fifo).inum, 0U);  // opened, and does not block
  EXPECT_EQ(open_netns_file(dir).inum, 0U);
  EXPECT_EQ(open_netns_file(dir + "/absent").inum, 0U);
  std::filesystem::create_symlink("net:[4026532177]", dir + "/link");
  const NetnsFileIdentity fake = netns_link_identity(dir + "/link");
  EXPECT_EQ(fake.inum, 4026532177U);
  EXPECT_FALSE(fake.id);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace netif_rx
