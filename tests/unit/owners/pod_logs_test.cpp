#include "owners/pod_logs.h"

#include <gtest/gtest.h>

#include "fake_tree.h"

namespace netif_rx {
namespace {

TEST(PodLogs, ParsesKubeletsFolderNames) {
  const auto parsed = parse_pod_log_folder(
      "kube-system_coredns-5d78c9869d-abcde_"
      "0b2c3d4e-1111-4222-8333-944455566677");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->first, "0b2c3d4e-1111-4222-8333-944455566677");
  EXPECT_EQ(parsed->second, (PodName{"kube-system", "coredns-5d78c9869d-abcde"}));
  // A static pod: the manifest's hash.
  const auto static_pod =
      parse_pod_log_folder("kube-system_etcd-node1_6d0f5f1bd1f3cbbc1c7e1d0a4e0a1c2b");
  ASSERT_TRUE(static_pod);
  EXPECT_EQ(static_pod->second.pod, "etcd-node1");
}

TEST(PodLogs, RefusesOtherNames) {
  EXPECT_FALSE(parse_pod_log_folder("."));
  EXPECT_FALSE(parse_pod_log_folder("default_web"));
  EXPECT_FALSE(parse_pod_log_folder("_web_0b2c3d4e-1111-4222-8333-944455566677"));
  EXPECT_FALSE(parse_pod_log_folder("default__0b2c3d4e-1111-4222-8333-944455566677"));
  EXPECT_FALSE(parse_pod_log_folder("default_web_0b2c3d4e-1111-4222-8333-944455566677x"));
  EXPECT_FALSE(parse_pod_log_folder("default_web_not-a-uid"));
}

TEST(PodLogs, ListsAFolderWithinItsBound) {
  FakeTree tree;
  tree.write("pods/default_web_11111111-2222-3333-4444-555555555555/web/0.log", "");
  tree.write("pods/default_db_66666666-2222-3333-4444-555555555555/db/0.log", "");
  tree.write("pods/stray-file", "");
  const auto all = list_pod_log_folders(tree.path("pods"), 10);
  EXPECT_EQ(all.by_uid.size(), 2U);
  EXPECT_EQ(all.by_uid.at("66666666-2222-3333-4444-555555555555").pod, "db");
  EXPECT_EQ(all.dropped, 0U);
  const auto bounded = list_pod_log_folders(tree.path("pods"), 1);
  EXPECT_EQ(bounded.by_uid.size(), 1U);
  EXPECT_EQ(bounded.dropped, 1U);
  EXPECT_TRUE(list_pod_log_folders(tree.path("absent"), 10).by_uid.empty());
}

}  // namespace
}  // namespace netif_rx
