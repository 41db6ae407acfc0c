#include "bpf_stats/sampling_schedule.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

using namespace std::chrono_literals;
using TimePoint = SamplingSchedule::TimePoint;

// A fake clock: instants are offsets from an arbitrary origin.
const TimePoint kStart = TimePoint{} + 1000h;

TEST(SamplingScheduleTest, WindowOpensAtStartAndEveryPeriod) {
  const SamplingSchedule schedule(2000ms, 60000ms, kStart);
  EXPECT_FALSE(schedule.in_window(kStart - 1ms));
  EXPECT_TRUE(schedule.in_window(kStart));
  EXPECT_TRUE(schedule.in_window(kStart + 1999ms));
  EXPECT_FALSE(schedule.in_window(kStart + 2000ms));
  EXPECT_FALSE(schedule.in_window(kStart + 59999ms));
  EXPECT_TRUE(schedule.in_window(kStart + 60000ms));
  EXPECT_TRUE(schedule.in_window(kStart + 10 * 60000ms + 1500ms));
  EXPECT_FALSE(schedule.in_window(kStart + 10 * 60000ms + 2500ms));
}

TEST(SamplingScheduleTest, NextChangeAlternatesOpenAndClose) {
  const SamplingSchedule schedule(2000ms, 60000ms, kStart);
  EXPECT_EQ(schedule.next_change(kStart - 5s), kStart);
  EXPECT_EQ(schedule.next_change(kStart), kStart + 2000ms);
  EXPECT_EQ(schedule.next_change(kStart + 1ms), kStart + 2000ms);
  EXPECT_EQ(schedule.next_change(kStart + 2000ms), kStart + 60000ms);
  EXPECT_EQ(schedule.next_change(kStart + 30000ms), kStart + 60000ms);
  EXPECT_EQ(schedule.next_change(kStart + 60000ms), kStart + 62000ms);
}

TEST(SamplingScheduleTest, SteppingAFakeClockGivesTheDutyCycle) {
  const SamplingSchedule schedule(2000ms, 60000ms, kStart);
  EXPECT_DOUBLE_EQ(schedule.duty_cycle(), 2.0 / 60.0);
  // Walk 10 periods from change to change and add up the open time.
  TimePoint now = kStart;
  auto open = TimePoint::duration::zero();
  int windows = 0;
  while (now < kStart + 10 * 60000ms) {
    const TimePoint next = schedule.next_change(now);
    ASSERT_GT(next, now);
    if (schedule.in_window(now)) {
      open += next - now;
      ++windows;
    }
    now = next;
  }
  EXPECT_EQ(windows, 10);
  EXPECT_EQ(open, 10 * 2000ms);
}

}  // namespace
}  // namespace netif_rx
