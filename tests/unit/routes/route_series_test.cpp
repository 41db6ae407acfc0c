#include "routes/route_series.h"

#include <gtest/gtest.h>

#include "metrics/route_text.h"

namespace netif_rx {
namespace {

RouteCounts counts() {
  RouteCounts counts;
  counts.queues = {{{10, 2, 0}, 0, {5, 0}},    // eth0 queue 0 on CPU 0
                   {{10, 2, 0}, 1, {0, 7}},    // eth0 queue 1 on CPU 1
                   {{10, 9, 0}, 0, {3, 3}},    // not of the per-CPU class
                   {{11, 4, 8}, 2, {1, 0}}};   // another namespace's tap
  counts.steered = {{{10, 2, 0}, 0, {0, 4}}};  // eth0: built on CPU 0, processed on 1
  counts.queue_untracked = 2;
  counts.steer_untracked = 1;
  counts.queue_entries = 4;
  counts.steer_entries = 1;
  return counts;
}

PerCpuDeviceLabels labels() { return {{{10, 2, 0}, "eth0"}, {{11, 4, 8}, "tap0"}}; }

TEST(RouteSnapshot, KeepsThePerCpuClassLinesThatCountedSorted) {
  const RouteSnapshot routes = build_route_snapshot(counts(), labels(), 1000, true);
  EXPECT_TRUE(routes.attached);
  EXPECT_TRUE(routes.steering);
  ASSERT_EQ(routes.queues.size(), 3U);
  EXPECT_EQ(routes.queues[0], (RouteLine{"eth0", 10, 0, 0, 5}));
  EXPECT_EQ(routes.queues[1], (RouteLine{"eth0", 10, 1, 1, 7}));
  EXPECT_EQ(routes.queues[2], (RouteLine{"tap0", 11, 2, 0, 1}));
  ASSERT_EQ(routes.steered.size(), 1U);
  EXPECT_EQ(routes.steered[0], (RouteLine{"eth0", 10, 0, 1, 4}));
  EXPECT_EQ(routes.queue_untracked, 2U);
  EXPECT_EQ(routes.steer_untracked, 1U);
  EXPECT_EQ(routes.queue_entries, 4U);
  // 3 queue lines + 1 steered + the two untracked.
  EXPECT_EQ(routes.series_count(), 6U);
}

TEST(RouteSnapshot, WithoutAllocCpuHasNoSteering) {
  const RouteSnapshot routes = build_route_snapshot(counts(), labels(), 1000, false);
  EXPECT_TRUE(routes.steered.empty());
  EXPECT_EQ(routes.series_count(), 4U);
  std::string out;
  write_route_text(out, routes, RenderOptions{});
  EXPECT_EQ(out.find("netif_rx_steered"), std::string::npos);
}

TEST(RouteSnapshot, ADeviceWhoseLinesPassTheBudgetIsLeftOutWhole) {
  // 2 fixed lines; eth0 takes 3 (2 queues, 1 steered), tap0 1: 5 fit eth0 only.
  const RouteSnapshot routes = build_route_snapshot(counts(), labels(), 5, true);
  EXPECT_EQ(routes.queues.size(), 2U);
  EXPECT_EQ(routes.steered.size(), 1U);
  EXPECT_EQ(routes.left_out_devices, 1U);
  EXPECT_LE(routes.series_count(), 5U);
}

TEST(RouteText, WritesQueuesAndSteeringByDeviceAndCpu) {
  const RouteSnapshot routes = build_route_snapshot(counts(), labels(), 1000, true);
  std::string out;
  write_route_text(out, routes, RenderOptions{false, true, false});
  EXPECT_EQ(out,
            "# HELP netif_rx_queue_packets_total Packets by the RX queue their driver recorded "
            "and the CPU that processed them; devices of the per-CPU class that record a queue "
            "only.\n"
            "# TYPE netif_rx_queue_packets_total counter\n"
            "netif_rx_queue_packets_total{device=\"eth0\",netns=\"10\",queue=\"0\",cpu=\"0\"} 5\n"
            "netif_rx_queue_packets_total{device=\"eth0\",netns=\"10\",queue=\"1\",cpu=\"1\"} 7\n"
            "netif_rx_queue_packets_total{device=\"tap0\",netns=\"11\",queue=\"2\",cpu=\"0\"} 1\n"
            "# HELP netif_rx_queue_untracked_packets_total Packets of a recorded queue counted "
            "without their queue because the queue map was full.\n"
            "# TYPE netif_rx_queue_untracked_packets_total counter\n"
            "netif_rx_queue_untracked_packets_total 2\n"
            "# HELP netif_rx_steered_packets_total Packets processed on cpu that another CPU, "
            "from_cpu, built (RPS/RFS steering, cross-CPU work); devices of the per-CPU class "
            "only.\n"
            "# TYPE netif_rx_steered_packets_total counter\n"
            "netif_rx_steered_packets_total{device=\"eth0\",netns=\"10\",cpu=\"1\",from_cpu=\"0\"} "
            "4\n"
            "# HELP netif_rx_steered_untracked_packets_total Steered packets counted without "
            "their device because the steering map was full.\n"
            "# TYPE netif_rx_steered_untracked_packets_total counter\n"
            "netif_rx_steered_untracked_packets_total 1\n");
}

}  // namespace
}  // namespace netif_rx
