// Carrying a previous layout's counts: every count lands on its device or in
// the removed counts, never nowhere and never twice.
#include "continuity/carried_counts.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

constexpr unsigned kCpus = 2;
constexpr std::uint32_t kHost = 4026531840;
constexpr std::uint32_t kPod = 4026532500;
constexpr std::uint32_t kPodSalt = 77;

PerCpuCounters counts(std::uint64_t cpu0, std::uint64_t cpu1 = 0) {
  PerCpuCounters per_cpu(kCpus);
  per_cpu[0] = {cpu0, cpu0 / 2, cpu0 * 100};
  per_cpu[1] = {cpu1, 0, cpu1 * 100};
  return per_cpu;
}

std::uint64_t skbs(const PerCpuCounters& per_cpu) {
  std::uint64_t sum = 0;
  for (const auto& cpu : per_cpu) sum += cpu.skbs;
  return sum;
}

const DeviceCounters* device(const CarriedCounts& carried, const netif_rx_device_key& key) {
  for (const auto& entry : carried.devices) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

PreviousSettings blocks_of_four() {
  PreviousSettings settings;
  settings.host_netns_inum = kHost;
  settings.netns_blocks = 2;
  settings.netns_block_slots = 4;
  return settings;
}

TEST(CarryCounts, SumsEveryPlaceOfADeviceIntoOneEntry) {
  PreviousCounts previous;
  const netif_rx_device_key pod_eth0{kPod, 2, kPodSalt};
  previous.device_counters.push_back({pod_eth0, counts(5, 1)});  // before its namespace's block
  previous.netns_table.push_back(netif_rx_netns_block_entry(kPod, kPodSalt, 1));
  previous.netns_slots.emplace_back(1 * 4 + 2, counts(10, 3));   // block 1, ifindex 2
  previous.carried_counters.push_back({pod_eth0, counts(100)});  // from the layout before
  previous.host_slots.emplace_back(3, counts(7, 7));

  const CarriedCounts carried = carry_counts(previous, blocks_of_four(), 100, kCpus);
  ASSERT_EQ(carried.devices.size(), 2U);
  const DeviceCounters* pod = device(carried, pod_eth0);
  ASSERT_NE(pod, nullptr);
  EXPECT_EQ(pod->per_cpu[0].skbs, 115U);
  EXPECT_EQ(pod->per_cpu[1].skbs, 4U);
  EXPECT_EQ(pod->per_cpu[0].bytes, 11500U);
  EXPECT_EQ(pod->per_cpu[0].merged_packets, 2U + 5U + 50U);
  const DeviceCounters* host = device(carried, {kHost, 3, 0});  // own namespace: salt 0
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(skbs(host->per_cpu), 14U);
  EXPECT_EQ(skbs(carried.totals[NETIF_RX_SLOT_REMOVED]), 0U);
}

TEST(CarryCounts, SlotsOfNoNamespaceBecomeRemovedCounts) {
  PreviousCounts previous;
  // Block 0 retired (its entry emptied, not drained yet); block 1's entry
  // torn (its check word does not match); a slot of ifindex 0.
  auto torn = netif_rx_netns_block_entry(kPod, kPodSalt, 1);
  torn.check ^= 1;
  previous.netns_table.push_back(torn);
  previous.netns_table.push_back({0, 0, NETIF_RX_NO_BLOCK, 0});
  previous.netns_slots.emplace_back(0 * 4 + 2, counts(3));
  previous.netns_slots.emplace_back(1 * 4 + 1, counts(4));
  previous.netns_slots.emplace_back(1 * 4 + 0, counts(5));

  const CarriedCounts carried = carry_counts(previous, blocks_of_four(), 100, kCpus);
  EXPECT_TRUE(carried.devices.empty());
  EXPECT_EQ(carried.slots_without_device, 3U);
  EXPECT_EQ(skbs(carried.totals[NETIF_RX_SLOT_REMOVED]), 12U);
}

TEST(CarryCounts, DevicesBeyondTheCapacityBecomeRemovedCounts) {
  PreviousCounts previous;
  for (std::uint32_t ifindex = 1; ifindex <= 5; ++ifindex)
    previous.device_counters.push_back({{kPod, ifindex, kPodSalt}, counts(ifindex)});
  const CarriedCounts carried = carry_counts(previous, blocks_of_four(), 3, kCpus);
  EXPECT_EQ(carried.devices.size(), 3U);
  EXPECT_EQ(carried.devices_over_capacity, 2U);
  EXPECT_EQ(skbs(carried.totals[NETIF_RX_SLOT_REMOVED]), 4U + 5U);  // sorted by key: 4 and 5 left
}

TEST(CarryCounts, TotalsOfBothMapsAreSummedBySlot) {
  PreviousCounts previous;
  previous.totals.assign(NETIF_RX_PROBE_TOTALS_SLOTS, counts(0));
  previous.totals[NETIF_RX_SLOT_COUNTED] = counts(50, 5);
  previous.totals[NETIF_RX_SLOT_UNTRACKED] = counts(2);
  previous.totals[NETIF_RX_SLOT_REMOVED] = counts(9);
  previous.carried_totals = {counts(1), counts(10)};  // an older layout's, two slots only
  const CarriedCounts carried = carry_counts(previous, blocks_of_four(), 100, kCpus);
  ASSERT_EQ(carried.totals.size(), static_cast<std::size_t>(NETIF_RX_PROBE_TOTALS_SLOTS));
  EXPECT_EQ(skbs(carried.totals[NETIF_RX_SLOT_COUNTED]), 65U);
  EXPECT_EQ(skbs(carried.totals[NETIF_RX_SLOT_UNTRACKED]), 3U);
  EXPECT_EQ(skbs(carried.totals[NETIF_RX_SLOT_REMOVED]), 9U);
}

// The counted total's bytes word is the old probe's handover mark, not a
// count: it is not carried.
TEST(CarryCounts, TheOldProbesHandoverMarksAreNotCarried) {
  PreviousCounts previous;
  previous.totals.assign(NETIF_RX_PROBE_TOTALS_SLOTS, counts(0));
  previous.totals[NETIF_RX_SLOT_COUNTED] = counts(50, 5);
  previous.totals[NETIF_RX_SLOT_COUNTED][1].bytes = 0xffff888012345601;
  previous.totals[NETIF_RX_SLOT_UNTRACKED][0].bytes = 1500;
  const CarriedCounts carried = carry_counts(previous, blocks_of_four(), 100, kCpus);
  for (const auto& cpu : carried.totals[NETIF_RX_SLOT_COUNTED]) EXPECT_EQ(cpu.bytes, 0U);
  EXPECT_EQ(skbs(carried.totals[NETIF_RX_SLOT_COUNTED]), 55U);
  EXPECT_EQ(carried.totals[NETIF_RX_SLOT_UNTRACKED][0].bytes, 1500U);
}

TEST(CarryCounts, NothingToCarryGivesEmptyCounts) {
  const CarriedCounts carried = carry_counts({}, {}, 100, kCpus);
  EXPECT_TRUE(carried.devices.empty());
  ASSERT_EQ(carried.totals.size(), static_cast<std::size_t>(NETIF_RX_PROBE_TOTALS_SLOTS));
  for (const auto& slot : carried.totals) EXPECT_EQ(skbs(slot), 0U);
}

}  // namespace
}  // namespace netif_rx
