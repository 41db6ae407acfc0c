#include "owners/pod_uid.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

using Uids = std::vector<std::string>;

TEST(PodUid, CgroupfsDriverV2EveryQosClass) {
  EXPECT_EQ(pod_uids_in_cgroup("0::/kubepods/besteffort/pod0b2c3d4e-1111-4222-8333-944455566677/"
                               "0123456789abcdef\n"),
            Uids{"0b2c3d4e-1111-4222-8333-944455566677"});
  EXPECT_EQ(
      pod_uids_in_cgroup("0::/kubepods/burstable/podaaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee/c\n"),
      Uids{"aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"});
  // Guaranteed pods sit right under kubepods.
  EXPECT_EQ(pod_uids_in_cgroup("0::/kubepods/pod11111111-2222-3333-4444-555555555555/c\n"),
            Uids{"11111111-2222-3333-4444-555555555555"});
}

TEST(PodUid, SystemdDriverUnderscoresBecomeDashes) {
  EXPECT_EQ(pod_uids_in_cgroup("0::/kubepods.slice/kubepods-burstable.slice/"
                               "kubepods-burstable-pod0b2c3d4e_1111_4222_8333_944455566677.slice/"
                               "cri-containerd-abc.scope\n"),
            Uids{"0b2c3d4e-1111-4222-8333-944455566677"});
  EXPECT_EQ(pod_uids_in_cgroup("0::/kubepods.slice/kubepods-pod11111111_2222_3333_4444_555555555555"
                               ".slice/crio-abc.scope\n"),
            Uids{"11111111-2222-3333-4444-555555555555"});
}

TEST(PodUid, CgroupV1LinesAndStaticPods) {
  // Static pods' UID is their manifest's 32-hex hash.
  const std::string v1 =
      "12:pids:/kubepods/burstable/pod6d0f5f1bd1f3cbbc1c7e1d0a4e0a1c2b/abc\n"
      "11:memory:/kubepods/burstable/pod6d0f5f1bd1f3cbbc1c7e1d0a4e0a1c2b/abc\n"
      "1:name=systemd:/kubepods/burstable/pod6d0f5f1bd1f3cbbc1c7e1d0a4e0a1c2b/abc\n";
  EXPECT_EQ(pod_uids_in_cgroup(v1), Uids{"6d0f5f1bd1f3cbbc1c7e1d0a4e0a1c2b"});
}

TEST(PodUid, FoundBehindAnyPrefixNeverAnchoredOnKubepods) {
  // A kind node, a nested runtime, a cgroup namespace that hides the prefix.
  EXPECT_EQ(
      pod_uids_in_cgroup("0::/system.slice/docker-1234.scope/kubelet.slice/kubelet-kubepods."
                         "slice/kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-"
                         "pod11111111_2222_3333_4444_555555555555.slice/cri-containerd-x\n"),
      Uids{"11111111-2222-3333-4444-555555555555"});
  EXPECT_EQ(pod_uids_in_cgroup("0::/../pod11111111-2222-3333-4444-555555555555/abc\n"),
            Uids{"11111111-2222-3333-4444-555555555555"});
}

TEST(PodUid, NothingOutsidePods) {
  EXPECT_TRUE(pod_uids_in_cgroup("0::/system.slice/sshd.service\n").empty());
  EXPECT_TRUE(pod_uids_in_cgroup("0::/user.slice/user-0.slice/session-1.scope\n").empty());
  // "pod" inside a word, a UID too short, non-hex, not ending a component.
  EXPECT_TRUE(pod_uids_in_cgroup("0::/kubepods/burstable\n").empty());
  EXPECT_TRUE(pod_uids_in_cgroup("0::/mypod11111111-2222-3333-4444-555555555555\n").empty());
  EXPECT_TRUE(pod_uids_in_cgroup("0::/pod1111-2222\n").empty());
  EXPECT_TRUE(pod_uids_in_cgroup("0::/podzzzzzzzz-2222-3333-4444-555555555555\n").empty());
  EXPECT_TRUE(pod_uids_in_cgroup("0::/pod11111111-2222-3333-4444-555555555555x\n").empty());
  EXPECT_TRUE(pod_uids_in_cgroup("").empty());
}

TEST(PodUid, TwoPodsAreBothReported) {
  EXPECT_EQ(pod_uids_in_cgroup("1:cpu:/kubepods/pod11111111-2222-3333-4444-555555555555/a\n"
                               "0::/kubepods/pod66666666-2222-3333-4444-555555555555/b\n"),
            (Uids{"11111111-2222-3333-4444-555555555555", "66666666-2222-3333-4444-555555555555"}));
}

}  // namespace
}  // namespace netif_rx
