#include "continuity/pin_lock.h"

#include <gtest/gtest.h>
#include <sys/sysmacros.h>

namespace netif_rx {
namespace {

TEST(FlockHolder, FindsThePidOfTheFileLock) {
  const std::string locks =
      "1: POSIX  ADVISORY  WRITE 77 00:27:6279390 0 EOF\n"
      "2: FLOCK  ADVISORY  WRITE 4242 00:27:6279390 0 EOF\n"
      "2: -> FLOCK  ADVISORY  WRITE 5151 00:27:6279390 0 EOF\n"
      "3: FLOCK  ADVISORY  WRITE 99 08:01:12 0 EOF\n";
  EXPECT_EQ(flock_holder(locks, makedev(0, 0x27), 6279390), 4242);
  EXPECT_EQ(flock_holder(locks, makedev(8, 1), 12), 99);
}

TEST(FlockHolder, NoneWhenUnlistedOrInvisible) {
  EXPECT_EQ(flock_holder("", makedev(0, 0x27), 1), std::nullopt);
  EXPECT_EQ(flock_holder("1: FLOCK  ADVISORY  WRITE 0 00:27:1 0 EOF\n", makedev(0, 0x27), 1),
            std::nullopt);  // the holder is in another pid namespace
  EXPECT_EQ(flock_holder("1: FLOCK  ADVISORY  WRITE 12 00:27:2 0 EOF\n", makedev(0, 0x27), 1),
            std::nullopt);
  EXPECT_EQ(flock_holder("garbage\n1: FLOCK\n", makedev(0, 0x27), 1), std::nullopt);
}

}  // namespace
}  // namespace netif_rx
