#include "owners/oci_bundle.h"

#include <gtest/gtest.h>

#include "bundle_samples.h"

namespace netif_rx {
namespace {

TEST(OciBundle, ContainerdSandbox) {
  const auto bundle = parse_bundle_config(containerd_sandbox("/var/run/netns/cni-1a2b"));
  ASSERT_TRUE(bundle);
  EXPECT_TRUE(bundle->own_network);
  EXPECT_EQ(bundle->netns_path, "/var/run/netns/cni-1a2b");
  EXPECT_EQ(bundle->container_type, "sandbox");
  const NetnsOwner owner = owner_of_bundle(*bundle, "4f1e");
  EXPECT_EQ(owner.kind, OwnerKind::pod);
  EXPECT_EQ(owner.namespace_name, "shop");
  EXPECT_EQ(owner.pod, "web-7d4b9c-x2x9z");
  EXPECT_EQ(owner.pod_uid, "0b2c3d4e-1111-4222-8333-944455566677");
  EXPECT_EQ(owner.container, "");
}

TEST(OciBundle, CrioSandboxIndentedWithTabs) {
  const auto bundle = parse_bundle_config(crio_sandbox("/var/run/netns/7c1d"));
  ASSERT_TRUE(bundle);
  EXPECT_EQ(bundle->netns_path, "/var/run/netns/7c1d");
  const NetnsOwner owner = owner_of_bundle(*bundle, "9a9a");
  EXPECT_EQ(owner.kind, OwnerKind::pod);
  EXPECT_EQ(owner.namespace_name, "backend");
  EXPECT_EQ(owner.pod, "api-0");
  EXPECT_EQ(owner.pod_uid, "66666666-2222-3333-4444-555555555555");
}

TEST(OciBundle, ContainerWithoutPodIsNamedByItsBundle) {
  const auto bundle = parse_bundle_config(plain_container("/proc/42/ns/net"));
  ASSERT_TRUE(bundle);
  const NetnsOwner owner = owner_of_bundle(*bundle, "redis-1");
  EXPECT_EQ(owner.kind, OwnerKind::container);
  EXPECT_EQ(owner.container, "redis-1");
}

TEST(OciBundle, HostNetworkHasNoNamespaceOfItsOwn) {
  const auto bundle = parse_bundle_config(host_network_sandbox());
  ASSERT_TRUE(bundle);
  EXPECT_FALSE(bundle->own_network);
}

TEST(OciBundle, KeysElsewhereAreNotTaken) {
  // Annotations and namespaces nested somewhere else don't count.
  const auto bundle =
      parse_bundle_config(R"({"process":{"annotations":{"io.kubernetes.pod.name":"fake"}},)"
                          R"("x":{"linux":{"namespaces":[{"type":"network","path":"/evil"}]}}})");
  ASSERT_TRUE(bundle);
  EXPECT_FALSE(bundle->own_network);
  EXPECT_EQ(bundle->pod_name, "");
}

TEST(OciBundle, RefusesWhatIsNotABoundedJsonObject) {
  EXPECT_FALSE(parse_bundle_config(""));
  EXPECT_FALSE(parse_bundle_config("[]"));
  EXPECT_FALSE(parse_bundle_config("{\"a\":"));
  EXPECT_FALSE(parse_bundle_config("{} trailing"));
  EXPECT_FALSE(parse_bundle_config(std::string(100000, '[')));
  std::string deep = "{\"a\":";
  for (std::size_t i = 0; i < kMaxBundleDepth; ++i) deep += "[";
  EXPECT_FALSE(parse_bundle_config(deep + std::string(kMaxBundleDepth, ']') + "}"));
  EXPECT_FALSE(parse_bundle_config(std::string(kMaxBundleConfigBytes + 1, ' ')));
  EXPECT_TRUE(parse_bundle_config("{\"a\":[[[1]]]}"));
}

}  // namespace
}  // namespace netif_rx
