#include "owners/nsfs_mounts.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

TEST(NsfsMounts, NamesNetworkNamespaceMountsByTheirLastComponent) {
  const std::string mountinfo =
      "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
      "25 22 0:22 / /proc rw,nosuid shared:12 - proc proc rw\n"
      "612 29 0:4 net:[4026532177] /run/netns/blue rw shared:300 - nsfs nsfs rw\n"
      "613 29 0:4 net:[4026532300] /run/netns/cni-1a2b3c4d-0000-1111-2222-333344445555 rw "
      "shared:301 - nsfs nsfs rw\n"
      "614 29 0:4 net:[4026532400] /run/netns/netns-5e6f rw - nsfs nsfs rw\n"
      "615 29 0:4 net:[4026532500] /run/docker/netns/0123abcd rw - nsfs nsfs rw\n"
      // the same namespace mounted twice: the first mount names it
      "616 29 0:4 net:[4026532177] /run/netns/blue-again rw - nsfs nsfs rw\n"
      // other namespace types and a name with an escaped space
      "617 29 0:4 mnt:[4026532600] /run/mntns/x rw - nsfs nsfs rw\n"
      "618 29 0:4 net:[4026532700] /run/netns/with\\040space rw - nsfs nsfs rw\n"
      "garbage line\n"
      "619 29 0:4 net:[notanumber] /run/netns/bad rw - nsfs nsfs rw\n";
  const auto named = parse_nsfs_mounts(mountinfo);
  EXPECT_EQ(named.size(), 5U);
  EXPECT_EQ(named.at(4026532177), "blue");
  EXPECT_EQ(named.at(4026532300), "cni-1a2b3c4d-0000-1111-2222-333344445555");
  EXPECT_EQ(named.at(4026532400), "netns-5e6f");
  EXPECT_EQ(named.at(4026532500), "0123abcd");
  EXPECT_EQ(named.at(4026532700), "with space");
}

TEST(NsfsMounts, ParsesTheKernelsNamespaceLink) {
  EXPECT_EQ(parse_net_link("net:[4026531840]"), 4026531840U);
  EXPECT_EQ(parse_net_link("net:[]"), 0U);
  EXPECT_EQ(parse_net_link("mnt:[4026531840]"), 0U);
  EXPECT_EQ(parse_net_link("net:[99999999999]"), 0U);
  EXPECT_EQ(parse_net_link("net:[12x]"), 0U);
}

}  // namespace
}  // namespace netif_rx
