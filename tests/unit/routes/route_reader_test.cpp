#include "routes/route_reader.h"

#include <gtest/gtest.h>

#include <set>

#include "probe/fake_bpf_map.h"

namespace netif_rx {
namespace {

using test::FakeBpfMap;

constexpr unsigned kCpus = 2;
constexpr std::uint32_t kHost = 10;

TEST(QueueSlotIndex, StaysWithinACpusSlotsAndSpreadsANicsQueues) {
  std::set<std::uint32_t> used;
  for (std::uint32_t queue_mapping = 1; queue_mapping <= 16; ++queue_mapping) {
    const std::uint32_t index = netif_rx_queue_slot_index(2, queue_mapping);
    EXPECT_LT(index, NETIF_RX_QUEUE_SLOTS);
    used.insert(index);
  }
  // Fibonacci hashing spreads 16 consecutive queues over most of 64 slots.
  EXPECT_GE(used.size(), 12U);
  EXPECT_NE(netif_rx_queue_slot_index(2, 1), netif_rx_queue_slot_index(3, 1));
  EXPECT_EQ(netif_rx_queue_slot_index(2, 1), netif_rx_queue_slot_index(2, 1));
}

TEST(AddQueueSlot, SumsATakenSlotIntoItsQueueAndSkipsEmptyOrHalfTakenOnes) {
  std::vector<RouteCount> queues;
  queues.push_back({{kHost, 2, 0}, 0, {5, 0}});        // the hash's entry of queue 0
  add_queue_slot(queues, {2, 1, 7}, 0, kHost, kCpus);  // queue 0 on CPU 0: summed
  add_queue_slot(queues, {2, 2, 3}, 1, kHost, kCpus);  // queue 1 on CPU 1: new
  add_queue_slot(queues, {0, 0, 0}, 1, kHost, kCpus);  // empty
  add_queue_slot(queues, {0, 3, 9}, 1, kHost, kCpus);  // being taken: no ifindex yet
  add_queue_slot(queues, {2, 3, 0}, 1, kHost, kCpus);  // taken, nothing counted yet
  ASSERT_EQ(queues.size(), 2U);
  EXPECT_EQ(queues[0].per_cpu, (std::vector<std::uint64_t>{12, 0}));
  EXPECT_EQ(queues[1].device.ifindex, 2U);
  EXPECT_EQ(queues[1].device.netns_inum, kHost);
  EXPECT_EQ(queues[1].from, 1U);
  EXPECT_EQ(queues[1].per_cpu, (std::vector<std::uint64_t>{0, 3}));
}

struct Maps {
  FakeBpfMap* slots;
  FakeBpfMap* queues;
  FakeBpfMap* steered;
  FakeBpfMap* totals;
};

RouteReader reader_with(Maps& maps) {
  RouteMaps route_maps;
  auto slots = std::make_unique<FakeBpfMap>("queue_slots", sizeof(std::uint32_t),
                                            sizeof(netif_rx_queue_slot));
  auto queues = std::make_unique<FakeBpfMap>("queue_counters", sizeof(netif_rx_queue_key),
                                             kCpus * sizeof(std::uint64_t));
  auto steered = std::make_unique<FakeBpfMap>("steer_counters", sizeof(netif_rx_steer_key),
                                              kCpus * sizeof(std::uint64_t));
  auto totals = std::make_unique<FakeBpfMap>("route_totals", sizeof(std::uint32_t),
                                             kCpus * sizeof(std::uint64_t));
  maps = {slots.get(), queues.get(), steered.get(), totals.get()};
  for (std::uint32_t index = 0; index < kCpus * NETIF_RX_QUEUE_SLOTS; ++index)
    slots->put(index, netif_rx_queue_slot{});
  for (std::uint32_t slot = 0; slot < NETIF_RX_ROUTE_TOTALS_SLOTS; ++slot)
    totals->put_array(slot, std::vector<std::uint64_t>{0, 0});
  route_maps.queue_slots = std::move(slots);
  route_maps.queue_counters = std::move(queues);
  route_maps.steer_counters = std::move(steered);
  route_maps.route_totals = std::move(totals);
  return RouteReader(std::move(route_maps), kHost, kCpus);
}

std::uint32_t slot_of(unsigned cpu, std::uint32_t ifindex, std::uint32_t queue_mapping) {
  return cpu * NETIF_RX_QUEUE_SLOTS + netif_rx_queue_slot_index(ifindex, queue_mapping);
}

TEST(RouteReader, ReadsSlotsHashesAndTotalsAndForgetsDevices) {
  Maps maps{};
  RouteReader reader = reader_with(maps);
  maps.slots->put(slot_of(1, 2, 1), netif_rx_queue_slot{2, 1, 40});
  maps.slots->put(slot_of(0, 3, 4), netif_rx_queue_slot{3, 4, 6});
  maps.queues->put_array(netif_rx_queue_key{kHost, 2, 0, 0}, std::vector<std::uint64_t>{1, 2});
  maps.queues->put_array(netif_rx_queue_key{77, 2, 5, 1}, std::vector<std::uint64_t>{0, 9});
  maps.steered->put_array(netif_rx_steer_key{kHost, 2, 0, 0}, std::vector<std::uint64_t>{0, 42});
  maps.totals->put_array(std::uint32_t{NETIF_RX_ROUTE_SLOT_STEER_UNTRACKED},
                         std::vector<std::uint64_t>{1, 1});

  RouteCounts counts = reader.read();
  EXPECT_TRUE(counts.errors.empty());
  EXPECT_EQ(counts.queue_entries, 2U);
  EXPECT_EQ(counts.steer_entries, 1U);
  EXPECT_EQ(counts.queue_untracked, 0U);
  EXPECT_EQ(counts.steer_untracked, 2U);
  ASSERT_EQ(counts.queues.size(), 3U);
  std::uint64_t host_queue0 = 0;
  for (const RouteCount& count : counts.queues) {
    if (count.device.netns_inum == kHost && count.device.ifindex == 2 && count.from == 0)
      host_queue0 = count.per_cpu[0] * 1000 + count.per_cpu[1];
  }
  EXPECT_EQ(host_queue0, 1042U);  // hash {1, 2} + CPU 1's slot 40
  ASSERT_EQ(counts.steered.size(), 1U);
  EXPECT_EQ(counts.steered[0].from, 0U);
  EXPECT_EQ(counts.steered[0].per_cpu, (std::vector<std::uint64_t>{0, 42}));

  // The batch read and the one-by-one read give the same.
  maps.slots->batch_error = EINVAL;
  EXPECT_EQ(reader.read().queues.size(), 3U);

  EXPECT_TRUE(reader.forget_devices({{kHost, 2, 0}}).empty());
  counts = reader.read();
  ASSERT_EQ(counts.queues.size(), 2U);
  for (const RouteCount& count : counts.queues) {
    EXPECT_FALSE(count.device.netns_inum == kHost && count.device.ifindex == 2);
  }
  EXPECT_TRUE(counts.steered.empty());
  EXPECT_FALSE(maps.queues->contains(netif_rx_queue_key{kHost, 2, 0, 0}));
  EXPECT_TRUE(maps.queues->contains(netif_rx_queue_key{77, 2, 5, 1}));
}

}  // namespace
}  // namespace netif_rx
