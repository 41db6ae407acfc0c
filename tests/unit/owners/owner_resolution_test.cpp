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
