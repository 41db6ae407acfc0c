#include "owners/bundle_scan.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "bundle_samples.h"
#include "fake_tree.h"
#include "owners/container_names.h"

namespace netif_rx {
namespace {

// Namespace paths of a fake tree are no namespaces (nsfs): they are found by
// their name among the nsfs mounts, as a path mounted after the exporter's
// container started is (a real nsfs path is in the integration test).
constexpr std::uint32_t kWeb = 4026532100;
constexpr std::uint32_t kApi = 4026532200;
const std::map<std::uint32_t, std::string> kNamed{{kWeb, "cni-1a2b"}, {kApi, "7c1d"}};

TEST(BundleScan, ContainerdAndCrioLayouts) {
  FakeTree tree;
  BundleCache cache;
  tree.write("netns/cni-1a2b", "");  // a mount point's empty file: not the namespace
  tree.write("containerd/k8s.io/4f1e/config.json", containerd_sandbox(tree.path("netns/cni-1a2b")));
  // a container of the same pod joins the sandbox's namespace
  tree.write("containerd/k8s.io/5a5a/config.json", containerd_sandbox("/var/run/netns/cni-1a2b"));
  tree.write("k3s/k8s.io/6b6b/config.json", host_network_sandbox());
  tree.write("crio/overlay-containers/9a9a/userdata/config.json",
             crio_sandbox("/var/run/netns/7c1d"));
  tree.write("crio/overlay-containers/not-a-bundle/userdata/other", "");
  const BundleScan scan = scan_bundles({tree.path("containerd/k8s.io"), tree.path("k3s/k8s.io"),
                                        tree.path("crio/overlay-containers"), tree.path("absent")},
                                       100, kNamed, cache);
  EXPECT_EQ(scan.bundles, 4U);
  EXPECT_EQ(scan.unreadable, 0U);
  ASSERT_EQ(scan.owners.size(), 2U);
  const NetnsOwner& web = scan.owners.at(kWeb);
  EXPECT_EQ(web.kind, OwnerKind::pod);
  EXPECT_EQ(web.pod, "web-7d4b9c-x2x9z");
  const NetnsOwner& api = scan.owners.at(kApi);
  EXPECT_EQ(api.namespace_name, "backend");
  EXPECT_EQ(api.pod, "api-0");
}

// podman's storage root: a pod's namespace is named by its infra container,
// with the name containers.json gives it; the pod's container, which joins
// that namespace through the infra's process, adds nothing (no ambiguity).
TEST(BundleScan, PodmanLayoutNamedByItsContainerIndex) {
  FakeTree tree;
  BundleCache cache;
  const std::string infra(64, 'b');
  const std::string app(64, 'c');
  const std::string alone(64, 'd');
  tree.write("podman/containers.json", podman_container_index(infra, app));
  tree.write("podman/" + infra + "/userdata/config.json", podman_infra("/run/netns/cni-1a2b"));
  tree.write("podman/" + app + "/userdata/config.json", podman_pod_container(infra));
  // not in the index: named by its id
  tree.write("podman/" + alone + "/userdata/config.json", podman_infra("/run/netns/7c1d"));
  const BundleScan scan = scan_bundles({tree.path("podman")}, 100, kNamed, cache);
  EXPECT_EQ(scan.bundles, 3U);
  EXPECT_EQ(scan.unreadable, 0U);
  ASSERT_EQ(scan.owners.size(), 2U);
  EXPECT_EQ(scan.owners.at(kWeb).kind, OwnerKind::container);
  EXPECT_EQ(scan.owners.at(kWeb).container, "73138670f9d4-infra");
  EXPECT_EQ(scan.owners.at(kApi).container, alone);
}

TEST(BundleScan, ContainerIndexOnlyAsAnArrayOfNamedEntries) {
  EXPECT_EQ(
      parse_container_names(podman_container_index("i1", "a1")),
      (std::map<std::string, std::string>{{"i1", "73138670f9d4-infra"}, {"a1", "nrxown-web-app"}}));
  EXPECT_TRUE(parse_container_names(R"({"id":"i1","names":["x"]})").empty());
  EXPECT_TRUE(
      parse_container_names(R"([{"id":"i1"},{"names":["x"]},{"id":"i2","names":[]}])").empty());
  EXPECT_TRUE(parse_container_names("[{\"id\":").empty());
  EXPECT_TRUE(parse_container_names(std::string(70, '[') + std::string(70, ']')).empty());
}

TEST(BundleScan, APathOutOfReachIsFoundByItsMountName) {
  FakeTree tree;
  BundleCache cache;
  tree.write("k8s.io/4f1e/config.json", containerd_sandbox("/nowhere/run/netns/cni-1a2b"));
  const BundleScan scan =
      scan_bundles({tree.path("k8s.io")}, 100, {{4026532177, "cni-1a2b"}}, cache);
  ASSERT_EQ(scan.owners.count(4026532177), 1U);
  EXPECT_EQ(scan.owners.at(4026532177).pod, "web-7d4b9c-x2x9z");
  // Neither reachable nor mounted: counted, not guessed.
  const BundleScan lost = scan_bundles({tree.path("k8s.io")}, 100, {}, cache);
  EXPECT_TRUE(lost.owners.empty());
  EXPECT_EQ(lost.unreadable, 1U);
}

TEST(BundleScan, TwoPodsNamingOneNamespaceAreAmbiguous) {
  FakeTree tree;
  BundleCache cache;
  tree.write("k8s.io/a/config.json", containerd_sandbox("/run/netns/cni-1a2b"));
  tree.write("k8s.io/b/config.json", crio_sandbox("/run/netns/cni-1a2b"));
  tree.write("k8s.io/c/config.json", "{broken");
  const BundleScan scan = scan_bundles({tree.path("k8s.io")}, 100, kNamed, cache);
  EXPECT_EQ(scan.owners.at(kWeb).kind, OwnerKind::ambiguous);
  EXPECT_EQ(scan.unreadable, 1U);
}

TEST(BundleScan, BoundedWithADropCount) {
  FakeTree tree;
  BundleCache cache;
  for (int i = 0; i < 5; ++i) {
    tree.write("k8s.io/" + std::to_string(i) + "/config.json", plain_container("/run/netns/7c1d"));
  }
  const BundleScan scan = scan_bundles({tree.path("k8s.io")}, 2, kNamed, cache);
  EXPECT_EQ(scan.bundles, 2U);
  EXPECT_EQ(scan.dropped, 3U);
  // Two bare containers in one namespace: which one's is it? Not guessed.
  EXPECT_EQ(scan.owners.at(kApi).kind, OwnerKind::ambiguous);
}

TEST(BundleScan, ParsesEachFileOnceUntilItChangesAndForgetsBundlesGone) {
  FakeTree tree;
  BundleCache cache;
  tree.write("k8s.io/a/config.json", containerd_sandbox("/run/netns/cni-1a2b"));
  tree.write("k8s.io/b/config.json", crio_sandbox("/run/netns/7c1d"));
  EXPECT_EQ(scan_bundles({tree.path("k8s.io")}, 100, kNamed, cache).owners.size(), 2U);
  EXPECT_EQ(cache.parses(), 2U);
  EXPECT_EQ(scan_bundles({tree.path("k8s.io")}, 100, kNamed, cache).owners.size(), 2U);
  EXPECT_EQ(cache.parses(), 2U);
  // Rewritten (another size): parsed again, and what it says now counts.
  tree.write("k8s.io/b/config.json", plain_container("/run/netns/7c1d"));
  const BundleScan changed = scan_bundles({tree.path("k8s.io")}, 100, kNamed, cache);
  EXPECT_EQ(cache.parses(), 3U);
  EXPECT_EQ(changed.owners.at(kApi).kind, OwnerKind::container);
  std::filesystem::remove_all(tree.path("k8s.io/a"));
  EXPECT_EQ(scan_bundles({tree.path("k8s.io")}, 100, kNamed, cache).owners.size(), 1U);
  EXPECT_EQ(cache.size(), 1U);
}

}  // namespace
}  // namespace netif_rx
