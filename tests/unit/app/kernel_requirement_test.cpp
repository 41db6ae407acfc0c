#include "app/kernel_requirement.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

TEST(KernelRequirement, RefusesKernelsBefore510WithTheReasonAndTheFix) {
  for (const char* release : {"5.8.0-63-generic", "5.9.16", "4.19.0-27-amd64"}) {
    const std::string reason = kernel_too_old(release);
    EXPECT_NE(reason.find(std::string("kernel ") + release + " is older than 5.10"),
              std::string::npos)
        << reason;
    EXPECT_NE(reason.find("upgrade to Linux 5.10 or later"), std::string::npos) << reason;
    EXPECT_EQ(reason.find('\n'), std::string::npos) << "one line";
  }
}

TEST(KernelRequirement, Accepts510AndLaterAndLeavesUnreadableReleasesToTheProbe) {
  for (const char* release :
       {"5.10.0-32-cloud-amd64", "5.15.0", "6.1.0-18-amd64", "6.18.44", "10.0.0", "", "rolling"}) {
    EXPECT_EQ(kernel_too_old(release), "") << release;
  }
}

}  // namespace
}  // namespace netif_rx
