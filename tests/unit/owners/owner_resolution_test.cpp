#include "owners/owner_resolution.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

constexpr std::uint32_t kHost = 4026531840;
const std::string kUid = "11111111-2222-3333-4444-555555555555";

NodeScan scan_with_everything() {
  NodeScan scan;
  scan.host_inum = kHost;
  scan.named = {{4026532100, "cni-aaaa"}, {4026532300, "blue"}, {kHost, "host-mounted"}};
  scan.bundles.owners[4026532100] = NetnsOwner{OwnerKind::pod, "shop", "web", "u-web", "", ""};
  scan.processes.pod_uids[4026532100] = {"someone-else"};  // the bundle is more exact
  scan.processes.pod_uids[4026532200] = {kUid};
  scan.processes.pod_uids[4026532400] = {kUid, "66666666-2222-3333-4444-555555555555"};
  scan.processes.pod_uids[4026532500] = {"99999999-2222-3333-4444-555555555555"};
  scan.processes.pod_uids[kHost] = {kUid};  // a hostNetwork pod
  scan.pod_logs.by_uid[kUid] = PodName{"backend", "api-0"};
  return scan;
}

TEST(OwnerResolution, MostExactSourceFirst) {
  const NodeScan scan = scan_with_everything();
  EXPECT_EQ(resolve_owner(kHost, scan), (NetnsOwner{OwnerKind::host, "", "", "", "", ""}));
  EXPECT_EQ(resolve_owner(4026532100, scan),
            (NetnsOwner{OwnerKind::pod, "shop", "web", "u-web", "", "cni-aaaa"}));
  EXPECT_EQ(resolve_owner(4026532200, scan),
            (NetnsOwner{OwnerKind::pod, "backend", "api-0", kUid, "", ""}));
  EXPECT_EQ(resolve_owner(4026532300, scan),
            (NetnsOwner{OwnerKind::named, "", "", "", "", "blue"}));
  EXPECT_EQ(resolve_owner(4026532400, scan).kind, OwnerKind::ambiguous);
  EXPECT_EQ(resolve_owner(4026532999, scan), NetnsOwner{});
}

TEST(OwnerResolution, APodWithoutLogFolderKeepsItsUid) {
  const NodeScan scan = scan_with_everything();
  EXPECT_EQ(resolve_owner(4026532500, scan),
            (NetnsOwner{OwnerKind::pod, "", "", "99999999-2222-3333-4444-555555555555", "", ""}));
}

TEST(OwnerResolution, PodNamesFromAnotherBundleOfTheSamePod) {
  NodeScan scan = scan_with_everything();
  scan.pod_logs.by_uid.clear();
  scan.bundles.owners[4026532900] = NetnsOwner{OwnerKind::pod, "backend", "api-0", kUid, "", ""};
  EXPECT_EQ(resolve_owner(4026532200, scan).pod, "api-0");
}

}  // namespace
}  // namespace netif_rx

namespace netif_rx {
namespace {

// podman: a namespace whose processes are podman containers is the container
// that owns it (a pod's infra container), as podman's bundles name it.
TEST(OwnerResolution, PodmanContainersOfTheNamespacesProcesses) {
  NodeScan scan;
  scan.host_inum = kHost;
  const std::string infra(64, 'b');
  const std::string app(64, 'c');
  const std::string other(64, 'd');
  scan.bundles.libpod_owners = {
      {infra, "73138670f9d4-infra"}, {app, "73138670f9d4-infra"}, {other, "db"}};
  scan.named = {{4026532600, "netns-1234"}};
  scan.processes.libpod_ids[4026532600] = {infra, app};            // one pod
  scan.processes.libpod_ids[4026532700] = {app, other};            // two owners: never guessed
  scan.processes.libpod_ids[4026532800] = {std::string(64, 'e')};  // no bundle: unknown
  EXPECT_EQ(resolve_owner(4026532600, scan),
            (NetnsOwner{OwnerKind::container, "", "", "", "73138670f9d4-infra", "netns-1234"}));
  EXPECT_EQ(resolve_owner(4026532700, scan).kind, OwnerKind::ambiguous);
  EXPECT_EQ(resolve_owner(4026532800, scan), NetnsOwner{});
}

}  // namespace
}  // namespace netif_rx
