// The poller's verdict on a poll, over maps in memory: which errors fail it,
// what it counts and publishes, and when it records a success.
#include "pipeline/poller.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/fake_probe_maps.h"
#include "probe/fake_bpf_map.h"

namespace netif_rx {
namespace {

using test::FakeBpfMap;

constexpr unsigned kCpus = 2;
constexpr std::uint32_t kHostNetns = 4026531840;
// An ifindex no device of the test's namespace has.
constexpr std::uint32_t kGoneIfindex = 999999;
constexpr std::uint32_t kLoopbackIfindex = 1;

class RecordingObserver final : public PollObserver {
 public:
  void count_poll_error(const std::string& reason) override { errors.push_back(reason); }
  void observe_poll(double) override { ++polls_observed; }
  void set_last_poll_timestamp(double unix_seconds) override { last_timestamp = unix_seconds; }

  std::vector<std::string> errors;
  int polls_observed = 0;
  double last_timestamp = 0;
};

// The slots of probe_totals a poll reads: all but the removed counts, read
// once when the poller starts.
constexpr std::size_t kSlotsReadByAPoll = NETIF_RX_PROBE_TOTALS_SLOTS - 1;

class PollerTest : public ::testing::Test {
 protected:
  PollerTest() {
    PollerOptions options;
    options.host_netns_inum = kHostNetns;
    options.per_cpu.devices = PerCpuDevices::all;  // the snapshot keeps each CPU's counts
    poller_ = std::make_unique<Poller>(
        MapReader(ProbeMaps{counters_, names_, totals_, nullptr, kHostNetns, 0, nullptr, nullptr, 0,
                            1, 1},
                  kCpus),
        options, [] { return std::make_shared<const LinkView>(); }, store_, observer_, removals_);
    poller_->set_after_success([this] { ++successes_; });
  }

  void add_host_device(std::uint32_t ifindex) {
    std::vector<netif_rx_counters> values(kCpus);
    values[0].skbs = 1;
    counters_->put_array(netif_rx_device_key{kHostNetns, ifindex, 0}, values);
  }

  bool published_since(const std::shared_ptr<const Snapshot>& before) const {
    return store_.latest() != before;
  }

  test::FakeProbeMaps maps_{kCpus};
  std::shared_ptr<FakeBpfMap> counters_ = maps_.counters;
  std::shared_ptr<FakeBpfMap> names_ = maps_.names;
  std::shared_ptr<FakeBpfMap> totals_ = maps_.totals;
  std::shared_ptr<RemovalQueue> removals_ = std::make_shared<RemovalQueue>();
  SnapshotStore store_;
  RecordingObserver observer_;
  std::atomic<int> successes_ = 0;  // set by the polling thread
  std::unique_ptr<Poller> poller_;
};

TEST_F(PollerTest, ACleanPollSucceedsAndPublishes) {
  const auto before = store_.latest();
  EXPECT_TRUE(poller_->poll_once());
  EXPECT_TRUE(observer_.errors.empty());
  EXPECT_EQ(observer_.polls_observed, 1);
  EXPECT_GT(observer_.last_timestamp, 0);
  EXPECT_EQ(successes_, 1);
  EXPECT_NE(poller_->last_success(), std::chrono::steady_clock::time_point{});
  EXPECT_TRUE(published_since(before));
}

TEST_F(PollerTest, AFailedReadFailsThePollAndPublishesNothing) {
  totals_->lookup_error = EPERM;  // every slot a poll reads: counted, untracked and the fallbacks
  const auto before = store_.latest();
  EXPECT_FALSE(poller_->poll_once());
  EXPECT_EQ(observer_.errors, std::vector<std::string>(kSlotsReadByAPoll, "map_read"));
  EXPECT_EQ(observer_.polls_observed, 1) << "a failed poll's duration is observed too";
  EXPECT_EQ(observer_.last_timestamp, 0);
  EXPECT_EQ(successes_, 0);
  EXPECT_EQ(poller_->last_success(), std::chrono::steady_clock::time_point{});
  EXPECT_FALSE(published_since(before));
}

TEST_F(PollerTest, AFailedDeleteFailsThePollButPublishes) {
  add_host_device(kGoneIfindex);
  removals_->push(kGoneIfindex);
  counters_->remove_error = EPERM;
  const auto before = store_.latest();
  EXPECT_FALSE(poller_->poll_once());
  ASSERT_FALSE(observer_.errors.empty());
  // The removal's delete, then maybe the step's own for the same gone device.
  for (const auto& reason : observer_.errors) EXPECT_EQ(reason, "map_delete");
  EXPECT_EQ(observer_.polls_observed, 1);
  EXPECT_EQ(observer_.last_timestamp, 0);
  EXPECT_EQ(successes_, 0);
  EXPECT_TRUE(published_since(before));
}

// Loopback's ifindex is live in every namespace: the step keeps its entry,
// only the queued removal deletes it (and carries its count as removed).
TEST_F(PollerTest, AQueuedRemovalDeletesTheEntryBeforeTheRead) {
  add_host_device(kLoopbackIfindex);
  removals_->push(kLoopbackIfindex);
  EXPECT_TRUE(poller_->poll_once());
  EXPECT_TRUE(observer_.errors.empty());
  EXPECT_FALSE(counters_->contains(netif_rx_device_key{kHostNetns, kLoopbackIfindex, 0}));
  const auto snapshot = store_.latest();
  EXPECT_TRUE(snapshot->devices.empty());
  ASSERT_EQ(snapshot->removed_per_cpu.size(), kCpus);
  EXPECT_EQ(snapshot->removed_per_cpu[0].skbs, 1U);
  // Kept in the map too, for the next exporter of a pinned probe.
  std::vector<netif_rx_counters> kept(kCpus);
  const std::uint32_t slot = NETIF_RX_SLOT_REMOVED;
  ASSERT_EQ(totals_->lookup(&slot, kept.data()), 0);
  EXPECT_EQ(kept[0].skbs, 1U);
}

// A removal the link watcher queues between two polls: the polling thread
// deletes the entry at once and keeps its counts in the map at once too, not
// at the next poll, so that a crash in between does not lose them.
TEST_F(PollerTest, AQueuedRemovalBetweenPollsIsKeptInTheMapAtOnce) {
  ASSERT_TRUE(poller_->poll_once());
  poller_->start();  // the next poll an interval (a second) later
  add_host_device(kLoopbackIfindex);
  removals_->push(kLoopbackIfindex);
  std::vector<netif_rx_counters> kept(kCpus);
  const std::uint32_t slot = NETIF_RX_SLOT_REMOVED;
  for (int i = 0; i < 200 && kept[0].skbs == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(totals_->lookup(&slot, kept.data()), 0);
  }
  EXPECT_EQ(kept[0].skbs, 1U);
  EXPECT_FALSE(counters_->contains(netif_rx_device_key{kHostNetns, kLoopbackIfindex, 0}));
  EXPECT_EQ(successes_, 1);  // no poll meanwhile
  poller_->stop();
}

// A pinned probe adopted: the removed counts of the exporter before go on.
TEST_F(PollerTest, GoesOnFromTheRemovedCountsKeptInTheMap) {
  std::vector<netif_rx_counters> kept(kCpus);
  kept[1].skbs = 7;
  kept[1].merged_packets = 3;
  totals_->put_array(std::uint32_t{NETIF_RX_SLOT_REMOVED}, kept);
  Poller adopted(
      MapReader(
          ProbeMaps{counters_, names_, totals_, nullptr, kHostNetns, 0, nullptr, nullptr, 0, 1, 1},
          kCpus),
      PollerOptions{}, [] { return std::make_shared<const LinkView>(); }, store_, observer_);
  add_host_device(kLoopbackIfindex);
  EXPECT_TRUE(adopted.poll_once());
  const auto snapshot = store_.latest();
  ASSERT_EQ(snapshot->removed_per_cpu.size(), kCpus);
  EXPECT_EQ(netif_rx_packets(&snapshot->removed_per_cpu[1]), 10U);
}

TEST_F(PollerTest, TheNextGoodPollIsASuccessAgain) {
  totals_->lookup_error = EPERM;
  EXPECT_FALSE(poller_->poll_once());
  totals_->lookup_error = 0;
  EXPECT_TRUE(poller_->poll_once());
  EXPECT_EQ(observer_.errors.size(), kSlotsReadByAPoll);  // the first poll's only
  EXPECT_GT(observer_.last_timestamp, 0);
  EXPECT_EQ(successes_, 1);
}

// The per-CPU buffers of each device's series.
std::vector<const netif_rx_counters*> buffers_of(const Snapshot& snapshot) {
  std::vector<const netif_rx_counters*> out;
  for (const auto& device : snapshot.devices) out.push_back(device.per_cpu.data());
  return out;
}

TEST_F(PollerTest, AReleasedSnapshotsBuffersServeALaterRead) {
  add_host_device(kLoopbackIfindex);
  ASSERT_TRUE(poller_->poll_once());
  const auto first = buffers_of(*store_.latest());
  ASSERT_EQ(first.size(), 1U);
  ASSERT_TRUE(poller_->poll_once());  // the first released: its buffers kept
  ASSERT_TRUE(poller_->poll_once());  // ... and filled by this read
  EXPECT_EQ(buffers_of(*store_.latest()), first);
}

TEST_F(PollerTest, ASnapshotAScrapeHoldsIsLeftAlone) {
  add_host_device(kLoopbackIfindex);
  ASSERT_TRUE(poller_->poll_once());
  const std::shared_ptr<const Snapshot> held = store_.latest();  // a slow scrape
  const auto buffers = buffers_of(*held);
  for (int poll = 0; poll < 3; ++poll) {
    std::vector<netif_rx_counters> values(kCpus);
    values[1].skbs = 100 + poll;
    counters_->put_array(netif_rx_device_key{kHostNetns, kLoopbackIfindex, 0}, values);
    ASSERT_TRUE(poller_->poll_once());
    EXPECT_NE(buffers_of(*store_.latest()), buffers);
  }
  ASSERT_EQ(held->devices.size(), 1U);
  EXPECT_EQ(buffers_of(*held), buffers);
  EXPECT_EQ(held->devices[0].per_cpu[0].skbs, 1U);
  EXPECT_EQ(held->devices[0].per_cpu[1].skbs, 0U);
  EXPECT_EQ(store_.latest()->devices[0].per_cpu[1].skbs, 102U);
}

// The NAPI source gets the per-CPU class devices of the same poll, by key and
// label, and what max_series leaves; its series count in the snapshot's.
TEST_F(PollerTest, TheNapiSourceGetsThePerCpuClassDevicesOfThePoll) {
  add_host_device(kLoopbackIfindex);
  PerCpuDeviceLabels seen;
  std::size_t budget = 0;
  poller_->set_napi_source([&](std::size_t left, const PerCpuDeviceLabels& labels) {
    seen = labels;
    budget = left;
    NapiSnapshot napi;
    napi.attached = true;
    napi.backlog_per_cpu = {NapiPolls{}, NapiPolls{2, 70, 1}};
    return napi;
  });
  ASSERT_TRUE(poller_->poll_once());
  const auto snapshot = store_.latest();
  ASSERT_EQ(snapshot->devices.size(), 1U);
  ASSERT_EQ(seen.size(), 1U);
  EXPECT_EQ(seen.begin()->first.ifindex, kLoopbackIfindex);
  EXPECT_EQ(seen.begin()->second, snapshot->devices[0].name);
  EXPECT_TRUE(snapshot->napi.attached);
  // The backlog's CPU 1 (3 lines) and the untracked polls (1).
  EXPECT_EQ(snapshot->series, 20000 - budget + 4);
}

TEST_F(PollerTest, TheNapiSourceGetsNoDeviceOutsideThePerCpuClass) {
  PollerOptions options;
  options.host_netns_inum = kHostNetns;
  options.per_cpu.devices = PerCpuDevices::none;
  Poller summed(
      MapReader(
          ProbeMaps{counters_, names_, totals_, nullptr, kHostNetns, 0, nullptr, nullptr, 0, 1, 1},
          kCpus),
      options, [] { return std::make_shared<const LinkView>(); }, store_, observer_);
  add_host_device(kLoopbackIfindex);
  std::size_t calls = 0;
  PerCpuDeviceLabels seen{{netif_rx_device_key{}, "stale"}};
  summed.set_napi_source([&](std::size_t, const PerCpuDeviceLabels& labels) {
    ++calls;
    seen = labels;
    return NapiSnapshot{};
  });
  ASSERT_TRUE(summed.poll_once());
  ASSERT_EQ(store_.latest()->devices.size(), 1U);
  EXPECT_EQ(calls, 1U);
  EXPECT_TRUE(seen.empty());
}

}  // namespace
}  // namespace netif_rx

namespace netif_rx {
namespace {

// The own namespace's array of slots, and link views that change while a
// poll reads the maps.
class PollerHostSlotsTest : public ::testing::Test {
 protected:
  static constexpr std::uint32_t kSlots = 16;

  PollerHostSlotsTest() {
    for (std::uint32_t ifindex = 0; ifindex < kSlots; ++ifindex)
      slots_->put_array(ifindex, std::vector<netif_rx_counters>(kCpus));
    PollerOptions options;
    options.host_netns_inum = kHostNetns;
    poller_ = std::make_unique<Poller>(
        MapReader(ProbeMaps{counters_, names_, totals_, slots_, kHostNetns, kSlots, nullptr,
                            nullptr, 0, 1, 1},
                  kCpus),
        options,
        [this] {
          const auto view = views_.at(std::min(next_view_, views_.size() - 1));
          ++next_view_;
          return view;
        },
        store_, observer_, removals_);
  }

  // `packets` on CPU 0 in the slot of `ifindex`, and in the probe's total.
  void count(std::uint32_t ifindex, std::uint64_t packets) {
    std::vector<netif_rx_counters> values(kCpus);
    values[0].skbs = packets;
    slots_->put_array(ifindex, values);
    const std::uint32_t counted = NETIF_RX_SLOT_COUNTED;
    totals_->put_array(counted, values);
  }

  test::FakeProbeMaps maps_{kCpus};
  std::shared_ptr<FakeBpfMap> counters_ = maps_.counters;
  std::shared_ptr<FakeBpfMap> names_ = maps_.names;
  std::shared_ptr<FakeBpfMap> totals_ = maps_.totals;
  std::shared_ptr<FakeBpfMap> slots_ = std::make_shared<FakeBpfMap>(
      "host_counters", sizeof(std::uint32_t), kCpus * sizeof(netif_rx_counters));
  std::shared_ptr<RemovalQueue> removals_ = std::make_shared<RemovalQueue>();
  std::vector<std::shared_ptr<const LinkView>> views_;
  std::size_t next_view_ = 0;
  SnapshotStore store_;
  RecordingObserver observer_;
  std::unique_ptr<Poller> poller_;
};

// A device created while the poll read the maps, which counted at once: the
// view taken before the read lacks it, the one after has it. Its slot is
// read too, so that the poll is not short of the probe's total.
TEST_F(PollerHostSlotsTest, ADeviceNewDuringThePollIsReadToo) {
  const auto before = std::make_shared<const LinkView>(LinkView{{1, {"lo", 1}}});
  const auto after = std::make_shared<const LinkView>(LinkView{{1, {"lo", 1}}, {5, {"new0", 2}}});
  views_ = {before, before, before, after};  // the first poll reads every slot: a quiet one first
  ASSERT_TRUE(poller_->poll_once());
  count(5, 3);
  ASSERT_TRUE(poller_->poll_once());
  const auto snapshot = store_.latest();
  ASSERT_EQ(snapshot->devices.size(), 1U);
  EXPECT_EQ(snapshot->devices[0].name, "new0");
  EXPECT_EQ(snapshot->devices[0].per_cpu[0].skbs, 3U);  // one element: the sum over CPUs
  EXPECT_EQ(snapshot->counted_per_cpu[0].skbs, 3U);
}

}  // namespace
}  // namespace netif_rx
