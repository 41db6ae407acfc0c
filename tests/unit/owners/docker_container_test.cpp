#include "owners/docker_container.h"

#include <gtest/gtest.h>

#include "bundle_samples.h"
#include "fake_tree.h"
#include "owners/bundle_scan.h"

namespace netif_rx {
namespace {

// config.v2.json as docker writes it (shortened), for a container on a
// bridge network.
std::string docker_container(const std::string& name, const std::string& sandbox_key,
                             const std::string& labels = "{}") {
  return R"({"StreamConfig":{},"State":{"Running":true,"Pid":4242},"ID":"0123abcd",)"
         R"("Path":"redis-server","Args":[],"Config":{"Hostname":"0123abcd","Labels":)" +
         labels + R"(,"Env":["PATH=/usr/bin"]},"Name":")" + name +
         R"(","NetworkSettings":{"Bridge":"","SandboxID":"5e6f","SandboxKey":")" + sandbox_key +
         R"(","Networks":{"bridge":{"IPAddress":"172.17.0.2"}}}})";
}

TEST(DockerContainer, NameAndSandboxKey) {
  const auto config = parse_docker_config(docker_container("/redis", "/var/run/docker/netns/5e6f"));
  ASSERT_TRUE(config);
  EXPECT_TRUE(config->own_network);
  EXPECT_EQ(config->netns_path, "/var/run/docker/netns/5e6f");
  const NetnsOwner owner = owner_of_bundle(*config, "0123abcd");
  EXPECT_EQ(owner.kind, OwnerKind::container);
  EXPECT_EQ(owner.container, "redis");
}

TEST(DockerContainer, CriDockerdPodLabels) {
  const auto config = parse_docker_config(docker_container(
      "/k8s_POD_web-0_shop_0b2c3d4e-1111-4222-8333-944455566677_0", "/var/run/docker/netns/77",
      R"({"io.kubernetes.docker.type":"podsandbox","io.kubernetes.pod.name":"web-0",)"
      R"("io.kubernetes.pod.namespace":"shop",)"
      R"("io.kubernetes.pod.uid":"0b2c3d4e-1111-4222-8333-944455566677"})"));
  ASSERT_TRUE(config);
  const NetnsOwner owner = owner_of_bundle(*config, "0123abcd");
  EXPECT_EQ(owner.kind, OwnerKind::pod);
  EXPECT_EQ(owner.namespace_name, "shop");
  EXPECT_EQ(owner.pod, "web-0");
  EXPECT_EQ(owner.pod_uid, "0b2c3d4e-1111-4222-8333-944455566677");
}

TEST(DockerContainer, StoppedContainerHasNoNamespace) {
  const auto config = parse_docker_config(docker_container("/old", ""));
  ASSERT_TRUE(config);
  EXPECT_FALSE(config->own_network);
  EXPECT_FALSE(parse_docker_config("[]"));
  EXPECT_FALSE(parse_docker_config(std::string(kMaxJsonDepth + 1, '{')));
}

TEST(DockerContainer, FoundByTheBundleScan) {
  FakeTree tree;
  BundleCache cache;
  tree.write("containers/0123abcd/config.v2.json",
             docker_container("/redis", "/var/run/docker/netns/5e6f"));
  tree.write("containers/0123abcd/hostconfig.json", "{}");
  const BundleScan scan =
      scan_bundles({tree.path("containers")}, 100, {{4026532500, "5e6f"}}, cache);
  ASSERT_EQ(scan.owners.count(4026532500), 1U);
  EXPECT_EQ(scan.owners.at(4026532500).container, "redis");
}

}  // namespace
}  // namespace netif_rx
