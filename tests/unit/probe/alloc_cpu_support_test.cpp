#include "probe/alloc_cpu_support.h"

#include <gtest/gtest.h>
#include <sys/utsname.h>

#include <cstdio>

namespace netif_rx {
namespace {

bool kernel_at_least(int major, int minor) {
  utsname name{};
  int have_major = 0;
  int have_minor = 0;
  if (::uname(&name) != 0 || std::sscanf(name.release, "%d.%d", &have_major, &have_minor) != 2)
    return false;
  return have_major > major || (have_major == major && have_minor >= minor);
}

// sk_buff keeps alloc_cpu inside an anonymous struct group: the search
// must go into anonymous members, as CO-RE does.
TEST(SkbHasAllocCpu, FindsTheFieldInTheRunningKernelsBtfFrom519) {
  std::string error;
  const auto found = skb_has_alloc_cpu("/sys/kernel/btf/vmlinux", error);
  ASSERT_TRUE(found.has_value()) << error;
  EXPECT_EQ(*found, kernel_at_least(5, 19));
}

TEST(SkbHasAllocCpu, SaysWhyWhenTheBtfCannotBeRead) {
  std::string error;
  EXPECT_FALSE(skb_has_alloc_cpu("/nonexistent/vmlinux", error).has_value());
  EXPECT_NE(error.find("/nonexistent/vmlinux"), std::string::npos) << error;
}

}  // namespace
}  // namespace netif_rx
