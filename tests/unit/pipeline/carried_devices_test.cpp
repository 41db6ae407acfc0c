// The counts carried over from another layout, over maps in memory: added to
// what a poll reads, once per device, and forgotten with the device.
#include "pipeline/carried_devices.h"

#include <gtest/gtest.h>

#include <memory>

#include "pipeline/poller.h"
#include "probe/fake_bpf_map.h"

namespace netif_rx {
namespace {

using test::FakeBpfMap;

constexpr unsigned kCpus = 2;
constexpr std::uint32_t kHost = 4026531840;
constexpr std::uint32_t kPod = 4026532500;

std::vector<netif_rx_counters> counts(std::uint64_t cpu0, std::uint64_t cpu1 = 0) {
  return {{cpu0, 0, cpu0 * 10}, {cpu1, 0, cpu1 * 10}};
}

class CarriedDevicesTest : public ::testing::Test {
 protected:
  CarriedDevicesTest() {
    maps_.carried_counters = carried_;
    maps_.carried_totals = totals_;
    for (std::uint32_t slot = 0; slot < NETIF_RX_PROBE_TOTALS_SLOTS; ++slot)
      totals_->put_array(slot, counts(0));
  }

  std::shared_ptr<FakeBpfMap> carried_ = std::make_shared<FakeBpfMap>(
      "carried_counters", sizeof(netif_rx_device_key), kCpus * sizeof(netif_rx_counters));
  std::shared_ptr<FakeBpfMap> totals_ = std::make_shared<FakeBpfMap>(
      "carried_totals", sizeof(std::uint32_t), kCpus * sizeof(netif_rx_counters));
  ProbeMaps maps_;
};

TEST_F(CarriedDevicesTest, AddsToTheDevicesReadAndShowsTheOthersAlone) {
  const netif_rx_device_key in_hash{kPod, 2, 9};
  const netif_rx_device_key in_array{kHost, 3, 0};
  const netif_rx_device_key quiet{kHost, 4, 0};
  carried_->put_array(in_hash, counts(100, 1));
  carried_->put_array(in_array, counts(200));
  carried_->put_array(quiet, counts(300));
  const std::uint32_t counted = NETIF_RX_SLOT_COUNTED;
  totals_->put_array(counted, counts(600, 1));
  CarriedDevices carried;
  ASSERT_TRUE(carried.load(maps_, kCpus).empty());
  EXPECT_EQ(carried.devices(), 3U);

  MapContents contents;
  contents.counted_per_cpu = counts(5);
  contents.untracked_per_cpu = counts(0);
  contents.device_counters.push_back({in_hash, counts(1, 1)});
  contents.host_slots.push_back({in_array, counts(2)});
  carried.add_to(contents);
  EXPECT_EQ(contents.counted_per_cpu[0].skbs, 605U);
  EXPECT_EQ(contents.counted_per_cpu[1].skbs, 1U);
  ASSERT_EQ(contents.device_counters.size(), 1U);
  EXPECT_EQ(contents.device_counters[0].per_cpu[0].skbs, 101U);
  EXPECT_EQ(contents.device_counters[0].per_cpu[1].skbs, 2U);
  ASSERT_EQ(contents.host_slots.size(), 2U);
  EXPECT_EQ(contents.host_slots[0].per_cpu[0].skbs, 202U);
  EXPECT_EQ(contents.host_slots[1].key, quiet);
  EXPECT_EQ(contents.host_slots[1].per_cpu[0].skbs, 300U);
}

TEST_F(CarriedDevicesTest, AForgottenDeviceLeavesTheMapToo) {
  const netif_rx_device_key gone{kHost, 3, 0};
  carried_->put_array(gone, counts(7));
  CarriedDevices carried;
  ASSERT_TRUE(carried.load(maps_, kCpus).empty());
  ASSERT_NE(carried.find(gone), nullptr);
  EXPECT_TRUE(carried.forget(gone).empty());
  EXPECT_EQ(carried.find(gone), nullptr);
  EXPECT_FALSE(carried_->contains(gone));
  EXPECT_TRUE(carried.forget(gone).empty()) << "a device without carried counts is fine";
}

TEST_F(CarriedDevicesTest, WithoutCarriedMapsNothingIsAdded) {
  CarriedDevices carried;
  ASSERT_TRUE(carried.load(ProbeMaps{}, kCpus).empty());
  MapContents contents;
  contents.counted_per_cpu = counts(5);
  carried.add_to(contents);
  EXPECT_EQ(contents.counted_per_cpu[0].skbs, 5U);
  EXPECT_TRUE(contents.host_slots.empty());
}

TEST_F(CarriedDevicesTest, AReadErrorCarriesNothingAndSaysSo) {
  carried_->put_array(netif_rx_device_key{kHost, 3, 0}, counts(7));
  carried_->lookup_error = EPERM;
  CarriedDevices carried;
  EXPECT_EQ(carried.load(maps_, kCpus).size(), 1U);
  EXPECT_EQ(carried.devices(), 0U);
}

// Through the poller: a carried device of this namespace that is gone moves
// its carried counts to the removed ones, and leaves the carried map.
TEST_F(CarriedDevicesTest, APollerMovesAGoneDevicesCarriedCountsToRemoved) {
  const netif_rx_device_key gone{kHost, 999999, 0};
  carried_->put_array(gone, counts(40, 2));
  auto counters = std::make_shared<FakeBpfMap>("device_counters", sizeof(netif_rx_device_key),
                                               kCpus * sizeof(netif_rx_counters));
  auto names = std::make_shared<FakeBpfMap>("device_names", sizeof(netif_rx_device_key),
                                            sizeof(netif_rx_device_name));
  auto totals = std::make_shared<FakeBpfMap>("probe_totals", sizeof(std::uint32_t),
                                             kCpus * sizeof(netif_rx_counters));
  for (std::uint32_t slot = 0; slot < NETIF_RX_PROBE_TOTALS_SLOTS; ++slot)
    totals->put_array(slot, counts(0));
  CarriedDevices carried;
  ASSERT_TRUE(carried.load(maps_, kCpus).empty());
  SnapshotStore store;
  struct : PollObserver {
    void count_poll_error(const std::string&) override {}
    void observe_poll(double) override {}
    void set_last_poll_timestamp(double) override {}
  } observer;
  PollerOptions options;
  options.host_netns_inum = kHost;
  options.gone_grace = Milliseconds(0);  // deleted at the first poll that finds it gone
  ProbeMaps maps;
  maps.device_counters = counters;
  maps.device_names = names;
  maps.probe_totals = totals;
  maps.host_netns_inum = kHost;
  Poller poller(
      MapReader(maps, kCpus), options, [] { return std::make_shared<const LinkView>(); }, store,
      observer);
  poller.set_carried(std::move(carried));
  ASSERT_TRUE(poller.poll_once());
  const auto snapshot = store.latest();
  EXPECT_TRUE(snapshot->devices.empty());
  ASSERT_EQ(snapshot->removed_per_cpu.size(), kCpus);
  EXPECT_EQ(snapshot->removed_per_cpu[0].skbs, 40U);
  EXPECT_EQ(snapshot->removed_per_cpu[1].skbs, 2U);
  EXPECT_FALSE(carried_->contains(gone));
}

}  // namespace
}  // namespace netif_rx
