#include "owners/libpod_cgroup.h"

#include <gtest/gtest.h>

#include <string>

namespace netif_rx {
namespace {

const std::string kId = "3a7580ad035476514d734ece055fadda8631876816a3f0565cba065669f47941";

TEST(LibpodCgroup, EveryManagerAndVersion) {
  // cgroupfs manager, a pod's container, v2 (as podman 4.3 wrote it here)
  EXPECT_EQ(
      libpod_container_in_cgroup(
          "0::/libpod_parent/750bfa34b0edbfadf6300ba72667728456c7ea061295a86ffd31669af7590d13/"
          "libpod-" +
          kId + "\n"),
      kId);
  // systemd manager, v1 lines, behind a cgroup namespace's prefix
  EXPECT_EQ(libpod_container_in_cgroup("12:pids:/machine.slice/libpod-" + kId +
                                       ".scope\n0::/../../machine.slice/libpod-" + kId +
                                       ".scope/container\n"),
            kId);
  EXPECT_EQ(libpod_container_in_cgroup("0::/machine.slice/machine-libpod_pod_" +
                                       std::string(64, 'a') + ".slice/libpod-" + kId + ".scope"),
            kId);
}

TEST(LibpodCgroup, NotAContainer) {
  EXPECT_FALSE(libpod_container_in_cgroup("0::/machine.slice/libpod-conmon-" + kId + ".scope\n"));
  EXPECT_FALSE(libpod_container_in_cgroup("0::/system.slice/ssh.service\n"));
  EXPECT_FALSE(libpod_container_in_cgroup("0::/x/libpod-" + kId.substr(0, 63) + "\n"));
  EXPECT_FALSE(libpod_container_in_cgroup("0::/x/libpod-" + kId + "0\n"));
  EXPECT_FALSE(libpod_container_in_cgroup("0::/x/notlibpod-" + kId + "\n"));
  EXPECT_FALSE(libpod_container_in_cgroup("0::/libpod_parent/" + kId + "\n"));
  EXPECT_FALSE(libpod_container_in_cgroup(""));
}

}  // namespace
}  // namespace netif_rx
