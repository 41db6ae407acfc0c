#include "owners/bundle_scan.h"

#include <gtest/gtest.h>

#include "bundle_samples.h"
#include "fake_tree.h"

namespace netif_rx {
namespace {

// Namespace paths are files of the tree: their inode stands for the
// namespace's (the real thing, a bind mount of nsfs, is in the integration test).
TEST(BundleScan, ContainerdAndCrioLayouts) {
  FakeTree tree;
  tree.write("netns/cni-1a2b", "");
  tree.write("netns/7c1d", "");
  tree.write("containerd/k8s.io/4f1e/config.json", containerd_sandbox(tree.path("netns/cni-1a2b")));
  // a container of the same pod joins the sandbox's namespace
  tree.write("containerd/k8s.io/5a5a/config.json", containerd_sandbox(tree.path("netns/cni-1a2b")));
  tree.write("k3s/k8s.io/6b6b/config.json", host_network_sandbox());
  tree.write("crio/overlay-containers/9a9a/userdata/config.json",
             crio_sandbox(tree.path("netns/7c1d")));
  tree.write("crio/overlay-containers/not-a-bundle/userdata/other", "");
  const BundleScan scan = scan_bundles({tree.path("containerd/k8s.io"), tree.path("k3s/k8s.io"),
                                        tree.path("crio/overlay-containers"), tree.path("absent")},
                                       100, {});
  EXPECT_EQ(scan.bundles, 4U);
  EXPECT_EQ(scan.unreadable, 0U);
  ASSERT_EQ(scan.owners.size(), 2U);
  const NetnsOwner& web = scan.owners.at(tree.inode("netns/cni-1a2b"));
  EXPECT_EQ(web.kind, OwnerKind::pod);
  EXPECT_EQ(web.pod, "web-7d4b9c-x2x9z");
  const NetnsOwner& api = scan.owners.at(tree.inode("netns/7c1d"));
  EXPECT_EQ(api.namespace_name, "backend");
  EXPECT_EQ(api.pod, "api-0");
}

TEST(BundleScan, APathOutOfReachIsFoundByItsMountName) {
  FakeTree tree;
  tree.write("k8s.io/4f1e/config.json", containerd_sandbox("/nowhere/run/netns/cni-1a2b"));
  const BundleScan scan = scan_bundles({tree.path("k8s.io")}, 100, {{4026532177, "cni-1a2b"}});
  ASSERT_EQ(scan.owners.count(4026532177), 1U);
  EXPECT_EQ(scan.owners.at(4026532177).pod, "web-7d4b9c-x2x9z");
  // Neither reachable nor mounted: counted, not guessed.
  const BundleScan lost = scan_bundles({tree.path("k8s.io")}, 100, {});
  EXPECT_TRUE(lost.owners.empty());
  EXPECT_EQ(lost.unreadable, 1U);
}

TEST(BundleScan, TwoPodsNamingOneNamespaceAreAmbiguous) {
  FakeTree tree;
  tree.write("netns/shared", "");
  tree.write("k8s.io/a/config.json", containerd_sandbox(tree.path("netns/shared")));
  tree.write("k8s.io/b/config.json", crio_sandbox(tree.path("netns/shared")));
  tree.write("k8s.io/c/config.json", "{broken");
  const BundleScan scan = scan_bundles({tree.path("k8s.io")}, 100, {});
  EXPECT_EQ(scan.owners.at(tree.inode("netns/shared")).kind, OwnerKind::ambiguous);
  EXPECT_EQ(scan.unreadable, 1U);
}

TEST(BundleScan, BoundedWithADropCount) {
  FakeTree tree;
  tree.write("netns/x", "");
  for (int i = 0; i < 5; ++i) {
    tree.write("k8s.io/" + std::to_string(i) + "/config.json",
               plain_container(tree.path("netns/x")));
  }
  const BundleScan scan = scan_bundles({tree.path("k8s.io")}, 2, {});
  EXPECT_EQ(scan.bundles, 2U);
  EXPECT_EQ(scan.dropped, 3U);
  // Two bare containers in one namespace: which one's is it? Not guessed.
  EXPECT_EQ(scan.owners.at(tree.inode("netns/x")).kind, OwnerKind::ambiguous);
}

}  // namespace
}  // namespace netif_rx
