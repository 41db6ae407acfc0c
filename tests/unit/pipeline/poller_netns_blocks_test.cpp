// The poller and other namespaces' blocks, over maps in memory: a namespace
// found in the hash is placed, its slot is summed with its hash entry, and a
// namespace with nothing left is retired, its block drained a poll later:
// what its slots counted meanwhile stays its devices' (carried), an adopted
// block's goes to the removed counts.
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/fake_probe_maps.h"
#include "pipeline/poller.h"
#include "probe/fake_bpf_map.h"

namespace netif_rx {
namespace {

using test::FakeBpfMap;

constexpr unsigned kCpus = 2;
constexpr std::uint32_t kHostNetns = 4026531840;
constexpr std::uint32_t kBlocks = 2;
constexpr std::uint32_t kBlockSlots = 4;
const std::uint32_t kTableSize = netns_table_size(kBlocks);  // 4
constexpr NetnsId kPod{4026532000, 7};

class NullObserver final : public PollObserver {
 public:
  void count_poll_error(const std::string& reason) override { errors.push_back(reason); }
  void observe_poll(double) override {}
  void set_last_poll_timestamp(double) override {}
  std::vector<std::string> errors;
};

std::vector<netif_rx_counters> skbs_on(unsigned cpu, std::uint64_t skbs) {
  std::vector<netif_rx_counters> values(kCpus);
  values[cpu].skbs = skbs;
  return values;
}

class PollerNetnsBlocksTest : public ::testing::Test {
 protected:
  PollerNetnsBlocksTest() {
    for (std::uint32_t index = 0; index < kTableSize; ++index)
      table_->put(index, netif_rx_netns_block{});
    for (std::uint32_t slot = 0; slot < kBlocks * kBlockSlots; ++slot)
      slots_->put_array(slot, std::vector<netif_rx_counters>(kCpus));
    start_poller();
  }

  // A poller on the maps as they are (a restart adopts the table).
  void start_poller() {
    PollerOptions options;
    options.namespaces = NamespaceMode::all;
    options.host_netns_inum = kHostNetns;
    options.per_cpu.devices = PerCpuDevices::all;  // the snapshot keeps each CPU's counts
    const ProbeMaps maps{counters_, names_, totals_, nullptr,     kHostNetns, 0,
                         table_,    slots_, kBlocks, kBlockSlots, kTableSize, carried_};
    CarriedDevices carried;
    EXPECT_TRUE(carried.load(maps, kCpus).empty());
    poller_ = std::make_unique<Poller>(
        MapReader(maps, kCpus), options, [] { return std::make_shared<const LinkView>(); }, store_,
        observer_);
    poller_->set_carried(std::move(carried));
  }

  void add_pod_device(const NetnsId& netns, std::uint32_t ifindex, std::uint64_t skbs) {
    const netif_rx_device_key key{netns.inum, ifindex, netns.salt};
    counters_->put_array(key, skbs_on(0, skbs));
    names_->put(key, netif_rx_device_name{"eth0"});
  }

  netif_rx_netns_block entry_of(const NetnsId& netns) {
    netif_rx_netns_block entry{};
    const std::uint32_t index = netns_table_index(netns.inum, kTableSize);
    EXPECT_EQ(table_->lookup(&index, &entry), 0);
    return entry;
  }

  std::vector<netif_rx_counters> slot(std::uint32_t block, std::uint32_t ifindex) {
    std::vector<netif_rx_counters> values(kCpus);
    const std::uint32_t key = block * kBlockSlots + ifindex;
    EXPECT_EQ(slots_->lookup(&key, values.data()), 0);
    return values;
  }

  std::uint32_t retire_with_late_count(std::uint64_t skbs);

  void count_in_slot(std::uint32_t block, std::uint32_t ifindex, unsigned cpu, std::uint64_t skbs) {
    slots_->put_array(block * kBlockSlots + ifindex, skbs_on(cpu, skbs));
  }

  test::FakeProbeMaps maps_{kCpus};
  std::shared_ptr<FakeBpfMap> counters_ = maps_.counters;
  std::shared_ptr<FakeBpfMap> names_ = maps_.names;
  std::shared_ptr<FakeBpfMap> totals_ = maps_.totals;
  std::shared_ptr<FakeBpfMap> table_ = std::make_shared<FakeBpfMap>(
      "netns_table", sizeof(std::uint32_t), sizeof(netif_rx_netns_block));
  std::shared_ptr<FakeBpfMap> slots_ = std::make_shared<FakeBpfMap>(
      "netns_slots", sizeof(std::uint32_t), kCpus * sizeof(netif_rx_counters));
  std::shared_ptr<FakeBpfMap> carried_ = std::make_shared<FakeBpfMap>(
      "carried_counters", sizeof(netif_rx_device_key), kCpus * sizeof(netif_rx_counters));
  SnapshotStore store_;
  NullObserver observer_;
  std::unique_ptr<Poller> poller_;
};

TEST_F(PollerNetnsBlocksTest, ANamespaceInTheHashIsPlacedAndItsSlotSummedWithItsEntry) {
  add_pod_device(kPod, 2, 5);
  ASSERT_TRUE(poller_->poll_once());
  const netif_rx_netns_block entry = entry_of(kPod);
  EXPECT_EQ(entry.netns_inum, kPod.inum);
  EXPECT_EQ(entry.netns_salt, kPod.salt);
  ASSERT_LT(entry.block, kBlocks);
  count_in_slot(entry.block, 2, 1, 3);  // the probe, from now on
  ASSERT_TRUE(poller_->poll_once()) << observer_.errors.size();
  const auto snapshot = store_.latest();
  ASSERT_EQ(snapshot->devices.size(), 1U);
  EXPECT_EQ(snapshot->devices[0].name, "eth0");
  EXPECT_EQ(snapshot->devices[0].per_cpu[0].skbs, 5U);  // the hash entry
  EXPECT_EQ(snapshot->devices[0].per_cpu[1].skbs, 3U);  // the slot
}

TEST_F(PollerNetnsBlocksTest, WhatARetiredBlockCountedBeforeItsDrainStaysItsDevices) {
  add_pod_device(kPod, 2, 5);
  ASSERT_TRUE(poller_->poll_once());
  const std::uint32_t block = entry_of(kPod).block;
  ASSERT_LT(block, kBlocks);
  // Its device forgotten (entry and name), nothing in its slot: retired.
  const netif_rx_device_key key{kPod.inum, 2, kPod.salt};
  counters_->remove(&key);
  names_->remove(&key);
  ASSERT_TRUE(poller_->poll_once());
  EXPECT_EQ(entry_of(kPod).netns_inum, 0U);
  EXPECT_EQ(entry_of(kPod).block, NETIF_RX_NO_BLOCK);
  // Packets between that poll's read and its emptied entry (or a run of the
  // probe that read the entry before): the slot's first one names it.
  count_in_slot(block, 2, 1, 4);
  names_->put(key, netif_rx_device_name{"eth0"});
  ASSERT_TRUE(poller_->poll_once());
  EXPECT_EQ(slot(block, 2)[1].skbs, 0U);
  auto snapshot = store_.latest();
  ASSERT_EQ(snapshot->devices.size(), 1U);
  EXPECT_EQ(snapshot->devices[0].name, "eth0");
  EXPECT_EQ(snapshot->devices[0].per_cpu[1].skbs, 4U);
  EXPECT_TRUE(snapshot->removed_per_cpu.empty() || snapshot->removed_per_cpu[1].skbs == 0U);
  // Carried in the map too (a restart that adopts the probe keeps them), and
  // summed with what the hash counts from now on.
  std::vector<netif_rx_counters> carried(kCpus);
  ASSERT_EQ(carried_->lookup(&key, carried.data()), 0);
  EXPECT_EQ(carried[1].skbs, 4U);
  counters_->put_array(key, skbs_on(0, 3));
  ASSERT_TRUE(poller_->poll_once());
  snapshot = store_.latest();
  ASSERT_EQ(snapshot->devices.size(), 1U);
  EXPECT_EQ(snapshot->devices[0].per_cpu[0].skbs, 3U);
  EXPECT_EQ(snapshot->devices[0].per_cpu[1].skbs, 4U);
  EXPECT_TRUE(observer_.errors.empty());
}

// Places kPod with a device at ifindex 2, forgets it and retires its block;
// then a late run of the probe counts `skbs` on CPU 1 in its slot. Returns
// the block.
std::uint32_t PollerNetnsBlocksTest::retire_with_late_count(std::uint64_t skbs) {
  add_pod_device(kPod, 2, 5);
  EXPECT_TRUE(poller_->poll_once());
  const std::uint32_t block = entry_of(kPod).block;
  const netif_rx_device_key key{kPod.inum, 2, kPod.salt};
  counters_->remove(&key);
  names_->remove(&key);
  EXPECT_TRUE(poller_->poll_once());
  EXPECT_EQ(entry_of(kPod).netns_inum, 0U);
  count_in_slot(block, 2, 1, skbs);
  names_->put(key, netif_rx_device_name{"eth0"});
  return block;
}

TEST_F(PollerNetnsBlocksTest, AFailedZeroingDrainsTheBlockAgainAndCountsItOnce) {
  const std::uint32_t block = retire_with_late_count(4);
  slots_->update_error = EIO;
  EXPECT_FALSE(poller_->poll_once());
  EXPECT_TRUE(store_.latest()->devices.empty()) << "not zeroed: not carried yet";
  slots_->update_error = 0;
  ASSERT_TRUE(poller_->poll_once());
  EXPECT_EQ(slot(block, 2)[1].skbs, 0U);
  ASSERT_TRUE(poller_->poll_once());  // drained: read once, not again
  const auto snapshot = store_.latest();
  ASSERT_EQ(snapshot->devices.size(), 1U);
  EXPECT_EQ(snapshot->devices[0].per_cpu[1].skbs, 4U);
}

TEST_F(PollerNetnsBlocksTest, ACarryTheMapRefusesGoesToTheRemovedCounts) {
  const std::uint32_t block = retire_with_late_count(4);
  carried_->update_error = ENOSPC;
  EXPECT_FALSE(poller_->poll_once());
  EXPECT_EQ(slot(block, 2)[1].skbs, 0U);
  const auto snapshot = store_.latest();
  EXPECT_TRUE(snapshot->devices.empty());
  ASSERT_EQ(snapshot->removed_per_cpu.size(), kCpus);
  EXPECT_EQ(snapshot->removed_per_cpu[1].skbs, 4U);
}

TEST_F(PollerNetnsBlocksTest, AnAdoptedBlockNoEntryHoldsIsDrainedIntoTheRemovedCounts) {
  ASSERT_TRUE(poller_->poll_once());
  // A restart: whose counts a block no entry holds are is not known.
  count_in_slot(1, 3, 1, 4);
  start_poller();
  ASSERT_TRUE(poller_->poll_once());
  EXPECT_EQ(slot(1, 3)[1].skbs, 0U);
  const auto snapshot = store_.latest();
  EXPECT_TRUE(snapshot->devices.empty());
  ASSERT_EQ(snapshot->removed_per_cpu.size(), kCpus);
  EXPECT_EQ(snapshot->removed_per_cpu[1].skbs, 4U);
}

TEST_F(PollerNetnsBlocksTest, ANamespaceWhoseEntryAnotherHoldsStaysInTheHash) {
  const NetnsId same_entry{kPod.inum + kTableSize, 9};
  add_pod_device(kPod, 2, 5);
  add_pod_device(same_entry, 2, 6);
  ASSERT_TRUE(poller_->poll_once());
  EXPECT_EQ(entry_of(kPod).netns_inum, kPod.inum);  // the lower inode number first
  ASSERT_TRUE(poller_->poll_once());
  EXPECT_EQ(entry_of(kPod).netns_inum, kPod.inum);
  const auto snapshot = store_.latest();
  EXPECT_EQ(snapshot->devices.size(), 2U);
  EXPECT_TRUE(observer_.errors.empty());
}

}  // namespace
}  // namespace netif_rx
