#include "devices/stale_tracker.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

using std::chrono::seconds;

TEST(StaleTracker, StaleOnlyAfterTheLimitWithoutChange) {
  StaleTracker tracker(seconds(10));
  const netif_rx_device_key key{4026532281, 2, 0};
  const StaleTracker::Clock::time_point t0{};
  EXPECT_FALSE(tracker.stale(key, 5, t0));
  EXPECT_FALSE(tracker.stale(key, 5, t0 + seconds(9)));
  EXPECT_FALSE(tracker.stale(key, 6, t0 + seconds(12)));  // moved: the clock restarts
  EXPECT_FALSE(tracker.stale(key, 6, t0 + seconds(21)));
  EXPECT_TRUE(tracker.stale(key, 6, t0 + seconds(22)));
}

TEST(StaleTracker, KeysAreIndependent) {
  StaleTracker tracker(seconds(1));
  const netif_rx_device_key a{1, 2, 0};
  const netif_rx_device_key b{3, 2, 0};  // same ifindex, another namespace
  const StaleTracker::Clock::time_point t0{};
  tracker.stale(a, 1, t0);
  tracker.stale(b, 1, t0);
  EXPECT_TRUE(tracker.stale(a, 1, t0 + seconds(2)));
  EXPECT_FALSE(tracker.stale(b, 2, t0 + seconds(2)));
}

TEST(StaleTracker, ForgetsKeysNoLongerInTheMap) {
  StaleTracker tracker(seconds(1));
  const StaleTracker::Clock::time_point t0{};
  for (std::uint32_t i = 0; i < 100; ++i) tracker.stale({1, i, 0}, 0, t0);
  tracker.end_poll();
  EXPECT_EQ(tracker.size(), 100U);
  tracker.stale({1, 7, 0}, 0, t0);
  tracker.end_poll();
  EXPECT_EQ(tracker.size(), 1U);
  tracker.forget({1, 7, 0});
  EXPECT_EQ(tracker.size(), 0U);
  // A forgotten key starts over.
  EXPECT_FALSE(tracker.stale({1, 7, 0}, 0, t0 + seconds(5)));
}

}  // namespace
}  // namespace netif_rx
