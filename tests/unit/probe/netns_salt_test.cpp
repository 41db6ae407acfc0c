#include "probe/netns_salt.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace netif_rx {
namespace {

// Every kernel the exporter runs on (>= 5.8) has hash_mix (since 5.1).
TEST(NetnsSalt, TheRunningKernelHasIt) {
  const std::string btf = "/sys/kernel/btf/vmlinux";
  ASSERT_EQ(::access(btf.c_str(), R_OK), 0) << "this test needs the kernel's BTF at " << btf;
  const NetnsSaltSupport support = netns_salt_support(btf);
  EXPECT_EQ(support.kind, NetnsSaltSupport::Kind::present) << support.detail;
}

TEST(NetnsSalt, AnUnreadableBtfIsUnknownWithTheReason) {
  const NetnsSaltSupport support = netns_salt_support("/nonexistent/vmlinux");
  EXPECT_EQ(support.kind, NetnsSaltSupport::Kind::unknown);
  EXPECT_NE(support.detail.find("/nonexistent/vmlinux"), std::string::npos) << support.detail;
}

}  // namespace
}  // namespace netif_rx
