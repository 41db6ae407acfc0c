// The privilege model's wording: what the log and check say is kept, and why.
#include "app/privilege_model.h"

#include <gtest/gtest.h>
#include <linux/capability.h>

namespace netif_rx {
namespace {

TEST(PrivilegeModelTest, NamesTheCapabilitiesItCanKeep) {
  EXPECT_EQ(capability_name(CAP_BPF), "CAP_BPF");
  EXPECT_EQ(capability_name(CAP_SYS_ADMIN), "CAP_SYS_ADMIN");
  EXPECT_EQ(capability_name(CAP_PERFMON), "CAP_PERFMON");
  EXPECT_EQ(capability_name(7), "capability 7");
}

TEST(PrivilegeModelTest, SaysWhoKeepsWhatAndWhy) {
  EXPECT_EQ(describe({std::nullopt, "reads work"}),
            "every thread holds no capability after startup: reads work");
  EXPECT_EQ(describe({CAP_BPF, "refused"}),
            "the map thread keeps CAP_BPF (effective, that thread only); every other thread "
            "holds none: refused");
}

}  // namespace
}  // namespace netif_rx
