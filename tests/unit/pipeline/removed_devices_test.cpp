// Removed devices handed from the link watcher to the polling thread.
#include "pipeline/removed_devices.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

TEST(RemovedDevicesTest, TakeEmptiesInOrder) {
  RemovedDevices removed;
  removed.push(3);
  removed.push(7);
  EXPECT_EQ(removed.take(), (std::vector<std::uint32_t>{3, 7}));
  EXPECT_TRUE(removed.take().empty());
}

TEST(RemovedDevicesTest, BoundedKeepsTheNewest) {
  RemovedDevices removed;
  for (std::uint32_t i = 0; i < RemovedDevices::kMax + 2; ++i) removed.push(i);
  const auto taken = removed.take();
  ASSERT_EQ(taken.size(), RemovedDevices::kMax);
  EXPECT_EQ(taken.front(), 2U);
  EXPECT_EQ(taken.back(), RemovedDevices::kMax + 1);
}

}  // namespace
}  // namespace netif_rx
