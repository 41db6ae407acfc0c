#include "pipeline/poll_step.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <random>
#include <string>

namespace netif_rx {
namespace {

using std::chrono::seconds;

constexpr std::uint32_t kHost = 4026531840;
constexpr std::uint32_t kOther = 4026532281;
const PollStep::Clock::time_point t0{};

DeviceCounters device(std::uint32_t netns, std::uint32_t ifindex, std::uint64_t packets,
                      std::uint32_t salt = 0) {
  return {{netns, ifindex, salt},
          {netif_rx_counters{packets, 0, packets * 100}, netif_rx_counters{1, 0, 60}}};
}

PollStepOptions host_options() {
  PollStepOptions options;
  options.host_netns_inum = kHost;
  // Every device of the per-CPU class: the snapshot keeps each CPU's
  // counts, which these tests read (the classes: poll_step_classes_test).
  options.per_cpu.devices = PerCpuDevices::all;
  return options;
}

PollStepOptions all_options() {
  PollStepOptions options = host_options();
  options.namespaces = NamespaceMode::all;
  options.stale_after = seconds(60);
  return options;
}

// The same links before and after the read.
HostLinks steady_links(LinkView view) {
  HostLinks links;
  links.before = std::make_shared<const LinkView>(std::move(view));
  links.after = links.before;
  links.ask_kernel = [](std::uint32_t ifindex) -> KernelLinkName {
    ADD_FAILURE() << "asked the kernel about ifindex " << ifindex;
    return {};
  };
  return links;
}

std::vector<std::string> names_of(const PollResult& result) {
  std::vector<std::string> names;
  for (const auto& series : result.snapshot.devices) names.push_back(series.name);
  return names;
}

TEST(PollStep, NamesHostDevicesFromTheLinksAndSortsByName) {
  PollStep step(host_options());
  MapContents contents;
  contents.device_counters = {device(kHost, 2, 5), device(kHost, 1, 7)};
  contents.untracked_per_cpu = {{3, 0, 300}, {0, 0, 0}};
  const auto result = step.run(contents, steady_links({{1, {"lo", 1}}, {2, {"eth0", 2}}}), t0);
  EXPECT_EQ(names_of(result), (std::vector<std::string>{"eth0", "lo"}));
  EXPECT_EQ(result.snapshot.devices[1].per_cpu[0].skbs, 7u);
  EXPECT_EQ(result.snapshot.untracked_per_cpu.size(), 2u);
  EXPECT_TRUE(result.deletions.empty());
  EXPECT_TRUE(result.errors.empty());
  EXPECT_EQ(result.device_entries, 2u);
}

TEST(PollStep, LeavesOutAnIfindexReusedOrRemovedDuringThePoll) {
  PollStep step(host_options());
  MapContents contents;
  contents.device_counters = {device(kHost, 5, 1), device(kHost, 6, 1), device(kHost, 7, 1)};
  HostLinks links = steady_links({});
  links.before = std::make_shared<const LinkView>(
      LinkView{{5, {"old", 1}}, {6, {"gone", 2}}, {7, {"renamed", 3}}});
  links.after = std::make_shared<const LinkView>(
      LinkView{{5, {"new", 4}}, {7, {"renamed2", 3}}});  // 5 reused, 6 removed, 7 renamed
  const auto result = step.run(contents, links, t0);
  EXPECT_EQ(names_of(result), (std::vector<std::string>{"renamed2"}));
  EXPECT_TRUE(result.deletions.empty());  // the link watcher deletes removed devices
}

TEST(PollStep, AsksTheKernelAboutAnIfindexNoViewKnows) {
  PollStep step(host_options());
  MapContents contents;
  contents.device_counters = {device(kHost, 3, 1), device(kHost, 4, 1), device(kHost, 5, 1)};
  HostLinks links;
  links.ask_kernel = [](std::uint32_t ifindex) -> KernelLinkName {
    if (ifindex == 3) return {KernelLinkName::Kind::found, "late0", 0};
    if (ifindex == 4) return {KernelLinkName::Kind::gone, {}, ENODEV};
    return {KernelLinkName::Kind::failed, {}, EMFILE};
  };
  EXPECT_TRUE(step.run(contents, links, t0).deletions.empty());  // its last packets maybe
  const auto result = step.run(contents, links, t0 + host_options().gone_grace);
  EXPECT_EQ(names_of(result), (std::vector<std::string>{"late0"}));
  // Deleted since it was counted: its entries go, so a device that later
  // gets ifindex 4 starts from zero.
  ASSERT_EQ(result.deletions.size(), 1u);
  EXPECT_EQ(result.deletions[0].key.ifindex, 4u);
  EXPECT_EQ(result.deletions[0].scope, MapDeletion::Scope::device);
  EXPECT_EQ(result.device_entries, 2u);
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].reason, "name_resolution");
  EXPECT_NE(result.errors[0].message.find("naming ifindex 5 failed"), std::string::npos);
}

TEST(PollStep, NamesOtherNamespacesFromTheRecordedNamesOnceRecorded) {
  PollStep step(all_options());
  MapContents contents;
  contents.device_counters = {device(kOther, 2, 1), device(kOther, 3, 1)};
  contents.device_names = {{{kOther, 2, 0}, "veth0"}};  // 3: its name deleted meanwhile
  const auto result = step.run(contents, steady_links({}), t0);
  // Shown by its ifindex, not left out: every counted packet is in the poll.
  EXPECT_EQ(names_of(result), (std::vector<std::string>{"(ifindex 3)", "veth0"}));
  EXPECT_TRUE(result.deletions.empty());
}

TEST(PollStep, ForgetsDevicesOfOtherNamespacesIdleForStaleAfter) {
  PollStep step(all_options());
  MapContents contents;
  contents.device_counters = {device(kOther, 2, 10), device(kOther, 3, 10)};
  contents.device_names = {{{kOther, 2, 0}, "idle"}, {{kOther, 3, 0}, "busy"}};
  EXPECT_TRUE(step.run(contents, steady_links({}), t0).deletions.empty());
  contents.device_counters[1] = device(kOther, 3, 11);
  EXPECT_TRUE(step.run(contents, steady_links({}), t0 + seconds(59)).deletions.empty());
  const auto result = step.run(contents, steady_links({}), t0 + seconds(61));
  ASSERT_EQ(result.deletions.size(), 1u);
  EXPECT_EQ(result.deletions[0].key.ifindex, 2u);
  EXPECT_EQ(result.deletions[0].why, "no packets for 1m");
  EXPECT_EQ(names_of(result), (std::vector<std::string>{"busy"}));
  EXPECT_EQ(result.device_entries, 1u);
  // Back with the same count after its deletion: a new device, a new clock.
  EXPECT_TRUE(step.run(contents, steady_links({}), t0 + seconds(62)).deletions.empty());
}

TEST(PollStep, AppliesTheDeviceFiltersToTheRawName) {
  PollStepOptions options = host_options();
  options.devices.include = {"eth.*", "lo"};
  options.devices.exclude = {"eth1"};
  PollStep step(options);
  MapContents contents;
  contents.device_counters = {device(kHost, 1, 1), device(kHost, 2, 1), device(kHost, 3, 1),
                              device(kHost, 4, 1)};
  const LinkView view = {{1, {"lo", 1}}, {2, {"eth0", 2}}, {3, {"eth1", 3}}, {4, {"veth9", 4}}};
  EXPECT_EQ(names_of(step.run(contents, steady_links(view), t0)),
            (std::vector<std::string>{"eth0", "lo"}));
  step.reconfigure({{}, {"lo"}}, seconds(60));
  EXPECT_EQ(names_of(step.run(contents, steady_links(view), t0)),
            (std::vector<std::string>{"eth0", "eth1", "veth9"}));
}

TEST(PollStep, NamesKeptFromTheSameViewFollowANewViewAndNewFilters) {
  PollStep step(host_options());
  MapContents contents;
  contents.device_counters = {device(kHost, 1, 1), device(kHost, 2, 1)};
  const HostLinks links = steady_links({{1, {"lo", 1}}, {2, {"eth0", 2}}});
  EXPECT_EQ(names_of(step.run(contents, links, t0)), (std::vector<std::string>{"eth0", "lo"}));
  EXPECT_EQ(names_of(step.run(contents, links, t0)), (std::vector<std::string>{"eth0", "lo"}));
  // The same view, new filters.
  step.reconfigure({{}, {"lo"}}, seconds(60));
  EXPECT_EQ(names_of(step.run(contents, links, t0)), (std::vector<std::string>{"eth0"}));
  // A new view: eth0 renamed.
  const HostLinks renamed = steady_links({{1, {"lo", 1}}, {2, {"wan0", 2}}});
  EXPECT_EQ(names_of(step.run(contents, renamed, t0)), (std::vector<std::string>{"wan0"}));
  // Views that differ keep no name; the next poll names anew.
  HostLinks changing = renamed;
  changing.after = std::make_shared<const LinkView>(LinkView{{1, {"lo", 1}}, {2, {"wan1", 2}}});
  EXPECT_EQ(names_of(step.run(contents, changing, t0)), (std::vector<std::string>{"wan1"}));
  EXPECT_EQ(names_of(step.run(contents, renamed, t0)), (std::vector<std::string>{"wan0"}));
}

TEST(PollStep, SortsByNameWhateverChangedSinceTheLastPoll) {
  PollStep step(host_options());
  std::mt19937 random(7);
  LinkView view;
  for (std::uint32_t ifindex = 1; ifindex <= 300; ++ifindex)
    view[ifindex] = {"dev" + std::to_string(random() % 1000), ifindex};
  HostLinks links = steady_links(view);
  for (int poll = 0; poll < 40; ++poll) {
    // Some polls read what the last one read, others a part of it in
    // another order, or with devices renamed (a new view).
    if (poll % 4 == 3) {
      for (int renames = 0; renames < 5; ++renames)
        view[1 + random() % 300].name = "dev" + std::to_string(random() % 1000);
      links = steady_links(view);
    }
    MapContents contents;
    std::vector<std::string> expected;
    for (std::uint32_t ifindex = 1; ifindex <= 300; ++ifindex) {
      if (poll % 2 == 1 && random() % 5 == 0) continue;
      contents.device_counters.push_back(device(kHost, ifindex, 1));
      expected.push_back(view[ifindex].name);
    }
    if (poll % 3 == 2)
      std::shuffle(contents.device_counters.begin(), contents.device_counters.end(), random);
    const std::size_t read = expected.size();
    std::sort(expected.begin(), expected.end());
    // Two devices may share a name in a view built this way: one series each
    // name, the older devices' shown by ifindex (none left out of the poll).
    expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
    const std::vector<std::string> names = names_of(step.run(contents, links, t0));
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end())) << "poll " << poll;
    EXPECT_EQ(names.size(), read) << "poll " << poll;
    std::vector<std::string> named;
    std::copy_if(names.begin(), names.end(), std::back_inserter(named),
                 [](const std::string& name) { return name.rfind("(ifindex ", 0) != 0; });
    EXPECT_EQ(named, expected) << "poll " << poll;
  }
}

TEST(PollStep, DeletesANameLeftWithoutCountersForTwoPolls) {
  PollStep step(all_options());
  MapContents contents;
  contents.device_counters = {device(kOther, 2, 1)};
  contents.device_names = {
      {{kOther, 2, 0}, "veth0"}, {{kOther, 9, 0}, "orphan"}, {{kOther, 8, 0}, "late"}};
  EXPECT_TRUE(step.run(contents, steady_links({}), t0).deletions.empty());
  contents.device_counters.push_back(device(kOther, 8, 1));  // its counters came in meanwhile
  const auto result = step.run(contents, steady_links({}), t0 + seconds(1));
  ASSERT_EQ(result.deletions.size(), 1u);
  EXPECT_EQ(result.deletions[0].key.ifindex, 9u);
  EXPECT_EQ(result.deletions[0].scope, MapDeletion::Scope::name_only);
  EXPECT_EQ(result.device_entries, 2u);
}

TEST(PollStep, NoOrphanSweepForTheHostNamespaceOnly) {
  PollStep step(host_options());
  MapContents contents;
  contents.device_names = {{{kOther, 9, 0}, "orphan"}};
  step.run(contents, steady_links({}), t0);
  EXPECT_TRUE(step.run(contents, steady_links({}), t0 + seconds(1)).deletions.empty());
}

TEST(PollStep, WarnsOncePerMinuteWhenPacketsWentUntracked) {
  PollStepOptions options = host_options();
  options.max_devices = 64;
  PollStep step(options);
  MapContents contents;
  contents.untracked_per_cpu = {{0, 0, 0}, {0, 0, 0}};
  EXPECT_TRUE(step.run(contents, steady_links({}), t0).warnings.empty());
  contents.untracked_per_cpu = {{3, 0, 300}, {4, 0, 400}};
  const auto first = step.run(contents, steady_links({}), t0 + seconds(1));
  ASSERT_EQ(first.warnings.size(), 1u);
  EXPECT_NE(first.warnings[0].find("max_devices=64): 7 packets"), std::string::npos);
  contents.untracked_per_cpu = {{5, 0, 500}, {4, 0, 400}};
  EXPECT_TRUE(step.run(contents, steady_links({}), t0 + seconds(30)).warnings.empty());
  const auto later = step.run(contents, steady_links({}), t0 + seconds(62));
  ASSERT_EQ(later.warnings.size(), 1u);
  EXPECT_NE(later.warnings[0].find(": 2 packets"), std::string::npos);
}

TEST(PollStep, MakesNamesValidLabelValues) {
  PollStep step(all_options());
  MapContents contents;
  contents.device_counters = {device(kOther, 2, 1)};
  contents.device_names = {{{kOther, 2, 0}, "bad\xff"}};
  EXPECT_EQ(names_of(step.run(contents, steady_links({}), t0)),
            (std::vector<std::string>{"bad\xEF\xBF\xBD"
                                      "ff"}));
}

// A device deleted and re-created under the same name in another namespace:
// the new ifindex holds the name, the old entry is removed, its counts go to
// the removed counters; never two series with one (netns, name).
TEST(PollStep, TheNewestDeviceOfANameHoldsItAndOlderOnesAreRemoved) {
  PollStep step(all_options());
  MapContents contents;
  contents.device_counters = {device(kOther, 5, 40)};
  contents.device_names = {{{kOther, 5, 0}, "eth0"}};
  step.run(contents, steady_links({}), t0);
  contents.device_counters = {device(kOther, 5, 40), device(kOther, 2, 7), device(kHost, 9, 1)};
  contents.device_names = {{{kOther, 5, 0}, "eth0"}, {{kOther, 2, 0}, "eth0"}};
  const auto result =
      step.run(contents, steady_links({{9, {"eth0", 1}}}), t0 + seconds(1));  // newer, lower index
  ASSERT_EQ(result.deletions.size(), 1u);
  EXPECT_EQ(result.deletions[0].key.ifindex, 5u);
  ASSERT_EQ(result.snapshot.devices.size(), 2u);  // the host's eth0 is another netns
  for (const auto& series : result.snapshot.devices) EXPECT_NE(series.key.ifindex, 5u);
  ASSERT_EQ(result.snapshot.removed_per_cpu.size(), 2u);
  EXPECT_EQ(result.snapshot.removed_per_cpu[0].skbs, 40u);
  EXPECT_EQ(result.snapshot.removed_per_cpu[1].skbs, 1u);
  EXPECT_EQ(result.device_entries, 2u);
}

// First read by the same poll: the higher ifindex is the newer device.
TEST(PollStep, SeenTogetherTheHigherIfindexHoldsTheName) {
  PollStep step(all_options());
  MapContents contents;
  contents.device_counters = {device(kOther, 8, 1), device(kOther, 3, 1)};
  contents.device_names = {{{kOther, 8, 0}, "eth0"}, {{kOther, 3, 0}, "eth0"}};
  const auto result = step.run(contents, steady_links({}), t0);
  ASSERT_EQ(result.snapshot.devices.size(), 1u);
  EXPECT_EQ(result.snapshot.devices[0].key.ifindex, 8u);
  ASSERT_EQ(result.deletions.size(), 1u);
  EXPECT_EQ(result.deletions[0].key.ifindex, 3u);
}

// A namespace whose inode number the kernel reused: the same (netns, ifindex,
// name) under another salt is another device. The new one holds the label
// set from zero; the dead one is removed at once, its count moves to the
// removed counters; the dead one's count never shows under the new one.
TEST(PollStep, AReusedInodeNumberStartsTheNewDeviceFromZero) {
  PollStep step(all_options());
  MapContents contents;
  contents.device_counters = {device(kOther, 2, 40, 0x1111)};
  contents.device_names = {{{kOther, 2, 0x1111}, "eth0"}};
  ASSERT_EQ(step.run(contents, steady_links({}), t0).snapshot.devices.size(), 1u);
  contents.device_counters = {device(kOther, 2, 40, 0x1111), device(kOther, 2, 3, 0x2222)};
  contents.device_names = {{{kOther, 2, 0x1111}, "eth0"}, {{kOther, 2, 0x2222}, "eth0"}};
  const auto result = step.run(contents, steady_links({}), t0 + seconds(1));
  ASSERT_EQ(result.snapshot.devices.size(), 1u);
  EXPECT_EQ(result.snapshot.devices[0].key, (netif_rx_device_key{kOther, 2, 0x2222}));
  EXPECT_EQ(result.snapshot.devices[0].per_cpu[0].skbs, 3u);
  ASSERT_EQ(result.deletions.size(), 1u);
  EXPECT_EQ(result.deletions[0].key, (netif_rx_device_key{kOther, 2, 0x1111}));
  EXPECT_EQ(result.deletions[0].scope, MapDeletion::Scope::device);
  EXPECT_EQ(result.snapshot.removed_per_cpu[0].skbs, 40u);
  EXPECT_EQ(result.device_entries, 1u);
  // The next poll: the dead entry is gone; the new one keeps the name.
  contents.device_counters = {device(kOther, 2, 5, 0x2222)};
  contents.device_names = {{{kOther, 2, 0x2222}, "eth0"}};
  const auto next = step.run(contents, steady_links({}), t0 + seconds(2));
  ASSERT_EQ(next.snapshot.devices.size(), 1u);
  EXPECT_EQ(next.snapshot.devices[0].per_cpu[0].skbs, 5u);
  EXPECT_TRUE(next.deletions.empty());
  EXPECT_EQ(next.snapshot.removed_per_cpu[0].skbs, 40u);
}

// Both first read by one poll (the old namespace died and its successor got
// its inode number between two polls): one label set, the other removed,
// and the choice does not depend on the order the map lists the entries in.
TEST(PollStep, ReusedInodeSeenTogetherKeepsOneSeries) {
  MapContents contents;
  contents.device_counters = {device(kOther, 2, 40, 0x1111), device(kOther, 2, 3, 0x2222)};
  contents.device_names = {{{kOther, 2, 0x1111}, "eth0"}, {{kOther, 2, 0x2222}, "eth0"}};
  PollStep step(all_options());
  const auto result = step.run(contents, steady_links({}), t0);
  ASSERT_EQ(result.snapshot.devices.size(), 1u);
  ASSERT_EQ(result.deletions.size(), 1u);
  EXPECT_FALSE(result.deletions[0].key == result.snapshot.devices[0].key);
  std::uint64_t accounted =
      result.snapshot.devices[0].per_cpu[0].skbs + result.snapshot.removed_per_cpu[0].skbs;
  EXPECT_EQ(accounted, 43u);

  std::reverse(contents.device_counters.begin(), contents.device_counters.end());
  PollStep reversed_step(all_options());
  const auto reversed = reversed_step.run(contents, steady_links({}), t0);
  ASSERT_EQ(reversed.snapshot.devices.size(), 1u);
  EXPECT_TRUE(reversed.snapshot.devices[0].key == result.snapshot.devices[0].key);
}

// Salts apart, the same (netns, ifindex) of different names are two devices
// (a dead namespace's eth0 and its successor's eth1 under one ifindex): both
// are shown until the dead one goes stale.
TEST(PollStep, ReusedInodeWithAnotherNameIsAnotherSeries) {
  PollStep step(all_options());
  MapContents contents;
  contents.device_counters = {device(kOther, 2, 40, 0x1111), device(kOther, 2, 3, 0x2222)};
  contents.device_names = {{{kOther, 2, 0x1111}, "eth0"}, {{kOther, 2, 0x2222}, "eth1"}};
  const auto result = step.run(contents, steady_links({}), t0);
  EXPECT_EQ(names_of(result), (std::vector<std::string>{"eth0", "eth1"}));
  EXPECT_TRUE(result.deletions.empty());
}

// An entry whose name is missing at two polls is removed, so that the probe
// records the name with the device's next packet; its counts are kept.
TEST(PollStep, AnEntryWithoutANameForTwoPollsIsRemoved) {
  PollStep step(all_options());
  MapContents contents;
  contents.device_counters = {device(kOther, 4, 9)};
  const auto first = step.run(contents, steady_links({}), t0);
  EXPECT_TRUE(first.deletions.empty());
  EXPECT_EQ(names_of(first), (std::vector<std::string>{"(ifindex 4)"}));
  const auto result = step.run(contents, steady_links({}), t0 + seconds(1));
  EXPECT_TRUE(result.snapshot.devices.empty());
  ASSERT_EQ(result.deletions.size(), 1u);
  EXPECT_EQ(result.deletions[0].scope, MapDeletion::Scope::device);
  EXPECT_EQ(result.snapshot.removed_per_cpu[0].skbs, 9u);
}

// counted = exported + untracked + removed, also across removals done by the
// shell (devices the link watcher saw go).
TEST(PollStep, CarriesTheProbeTotalAndEveryRemovedCount) {
  PollStep step(host_options());
  step.account_removed({kHost, 3, 0}, {{6, 0, 600}, {1, 0, 100}});
  MapContents contents;
  contents.device_counters = {device(kHost, 2, 5)};
  contents.untracked_per_cpu = {{2, 0, 200}, {0, 0, 0}};
  contents.counted_per_cpu = {{13, 0, 1300}, {2, 0, 160}};
  const auto result = step.run(contents, steady_links({{2, {"eth0", 1}}}), t0);
  EXPECT_EQ(result.snapshot.counted_per_cpu[0].skbs, 13u);
  std::uint64_t accounted = 0;
  for (std::size_t cpu = 0; cpu < 2; ++cpu) {
    accounted += result.snapshot.devices[0].per_cpu[cpu].skbs +
                 result.snapshot.untracked_per_cpu[cpu].skbs +
                 result.snapshot.removed_per_cpu[cpu].skbs;
  }
  EXPECT_EQ(accounted, 15u);
}

}  // namespace
}  // namespace netif_rx

namespace netif_rx {
namespace {

TEST(PollStepHostArray, MergesTheArraySlotsWithTheHashEntries) {
  PollStep step(host_options());
  MapContents contents;
  // eth0 at ifindex 2 in the array; big0 at ifindex 70000 beyond it, in the hash.
  contents.device_counters = {device(kHost, 70000, 3)};
  contents.host_slots = {device(kHost, 2, 5), device(kHost, 1, 7)};
  const auto result = step.run(
      contents, steady_links({{1, {"lo", 1}}, {2, {"eth0", 2}}, {70000, {"big0", 3}}}), t0);
  EXPECT_EQ(names_of(result), (std::vector<std::string>{"big0", "eth0", "lo"}));
  EXPECT_EQ(result.snapshot.devices[0].per_cpu[0].skbs, 3u);
  EXPECT_EQ(result.snapshot.devices[1].per_cpu[0].skbs, 5u);
  EXPECT_EQ(result.snapshot.devices[2].per_cpu[0].skbs, 7u);
  EXPECT_TRUE(result.deletions.empty());
  EXPECT_EQ(result.device_entries, 1u);  // the hash's entries only
}

// A device that left the namespace while the poll read the map (deleted,
// moved out, or its ifindex taken by a new device) is not shown under a name
// that may be another device's, and its counts are not missing either: they
// are held as removed ones, so the poll is not short of the probe's total,
// and the link watcher's removal then takes them once.
TEST(PollStepHostArray, ADeviceGoneDuringThePollIsHeldInTheRemovedCounters) {
  for (const LinkView& after : {LinkView{{2, {"eth1", 9}}}, LinkView{}}) {  // replaced, deleted
    PollStep step(host_options());
    MapContents contents;
    contents.host_slots = {device(kHost, 2, 5)};
    contents.counted_per_cpu = {{5, 0, 0}, {0, 0, 0}};
    HostLinks links = steady_links({{2, {"eth0", 2}}});
    links.after = std::make_shared<const LinkView>(after);
    const auto result = step.run(contents, links, t0);
    EXPECT_TRUE(result.snapshot.devices.empty());
    EXPECT_TRUE(result.deletions.empty());  // its last packets may still come
    ASSERT_FALSE(result.snapshot.removed_per_cpu.empty());
    EXPECT_EQ(result.snapshot.removed_per_cpu[0].skbs, 5u);
    // The link watcher's removal reads the slot once more (a last packet).
    step.account_removed({kHost, 2, 0}, {{6, 0, 0}, {0, 0, 0}});
    contents.host_slots = {};
    const auto next = step.run(contents, steady_links(after), t0 + host_options().gone_grace / 10);
    EXPECT_EQ(next.snapshot.removed_per_cpu[0].skbs, 6u);
  }
}

// A slot whose device the kernel says is gone is zeroed (a deletion) once it
// has been gone for gone_grace, and its counts then go to the
// removed counters: counted = exported + untracked + removed.
TEST(PollStepHostArray, AGoneDevicesSlotIsZeroedAndItsCountsRemoved) {
  PollStep step(host_options());
  MapContents contents;
  contents.host_slots = {device(kHost, 2, 5), device(kHost, 3, 4)};
  HostLinks links = steady_links({{2, {"eth0", 2}}});
  links.ask_kernel = [](std::uint32_t) {
    return KernelLinkName{KernelLinkName::Kind::gone, {}, 0};
  };
  EXPECT_TRUE(step.run(contents, links, t0).deletions.empty());
  const auto result = step.run(contents, links, t0 + host_options().gone_grace);
  EXPECT_EQ(names_of(result), (std::vector<std::string>{"eth0"}));
  ASSERT_EQ(result.deletions.size(), 1u);
  EXPECT_EQ(result.deletions[0].key, (netif_rx_device_key{kHost, 3, 0}));
  ASSERT_FALSE(result.snapshot.removed_per_cpu.empty());
  EXPECT_EQ(result.snapshot.removed_per_cpu[0].skbs, 4u);
  EXPECT_EQ(result.device_entries, 0u);  // no hash entry
}

// The kernel unlists a device (if_indextoname() then fails with ENODEV)
// before the packets it was receiving are through: its slot keeps counting
// until the unregistration's synchronize_net(). Zeroed at once, those packets
// would be lost, or shown as the next device's of that ifindex. So the slot
// is left (and not exported) until the device has been gone for gone_grace;
// meanwhile its counts are removed ones, and the removed counters follow its
// last packets up to the deletion.
TEST(PollStepHostArray, AGoneDeviceKeepsCountingUntilItsGraceIsOver) {
  PollStep step(host_options());
  HostLinks links = steady_links({});
  links.ask_kernel = [](std::uint32_t) {
    return KernelLinkName{KernelLinkName::Kind::gone, {}, ENODEV};
  };
  MapContents unlisted;
  unlisted.host_slots = {device(kHost, 3, 4)};
  const auto first = step.run(unlisted, links, t0);
  EXPECT_TRUE(first.deletions.empty());
  EXPECT_TRUE(first.snapshot.devices.empty());
  ASSERT_FALSE(first.snapshot.removed_per_cpu.empty());
  EXPECT_EQ(first.snapshot.removed_per_cpu[0].skbs, 4u);
  // Not kept in a pinned map while the entry is there: the next exporter
  // finds the entry and counts it.
  EXPECT_EQ(step.removed_to_persist()[0].skbs, 0u);
  MapContents later;  // two more packets arrived while it was unregistered
  later.host_slots = {device(kHost, 3, 6)};
  const auto meanwhile = step.run(later, links, t0 + host_options().gone_grace / 2);
  EXPECT_TRUE(meanwhile.deletions.empty());
  EXPECT_EQ(meanwhile.snapshot.removed_per_cpu[0].skbs, 6u);
  const auto result = step.run(later, links, t0 + host_options().gone_grace);
  ASSERT_EQ(result.deletions.size(), 1u);
  EXPECT_EQ(result.deletions[0].key, (netif_rx_device_key{kHost, 3, 0}));
  ASSERT_FALSE(result.snapshot.removed_per_cpu.empty());
  EXPECT_EQ(result.snapshot.removed_per_cpu[0].skbs, 6u);
  EXPECT_EQ(step.removed_to_persist()[0].skbs, 6u);
}

// A gone device's ifindex taken by a new device before the grace is over:
// the slot (the gone one's counts and the new one's first) is deleted then,
// all of it removed, and the new device starts from zero: no counter goes
// down, none counts a packet twice.
TEST(PollStepHostArray, AnIfindexTakenAgainWhileGoneEndsTheGrace) {
  PollStep step(host_options());
  MapContents contents;
  contents.host_slots = {device(kHost, 3, 4)};
  bool gone = true;
  HostLinks links = steady_links({});
  links.ask_kernel = [&gone](std::uint32_t) {
    return gone ? KernelLinkName{KernelLinkName::Kind::gone, {}, ENODEV}
                : KernelLinkName{KernelLinkName::Kind::found, "new0", 0};
  };
  EXPECT_TRUE(step.run(contents, links, t0).deletions.empty());
  gone = false;
  contents.host_slots = {device(kHost, 3, 5)};  // the new device's first packet
  const auto taken = step.run(contents, links, t0 + host_options().gone_grace / 10);
  EXPECT_TRUE(taken.snapshot.devices.empty());
  ASSERT_EQ(taken.deletions.size(), 1u);
  EXPECT_EQ(taken.snapshot.removed_per_cpu[0].skbs, 5u);
  contents.host_slots = {device(kHost, 3, 2)};  // zeroed, then two packets
  const auto after = step.run(contents, links, t0 + host_options().gone_grace / 5);
  EXPECT_EQ(names_of(after), (std::vector<std::string>{"new0"}));
  EXPECT_EQ(after.snapshot.devices[0].per_cpu[0].skbs, 2u);
  EXPECT_EQ(after.snapshot.removed_per_cpu[0].skbs, 5u);
}

// The link watcher's removal of a device in its grace: the removed counters
// take its last counts once, not its earlier ones again.
TEST(PollStepHostArray, ARemovalDuringTheGraceCountsTheDeviceOnce) {
  PollStep step(host_options());
  MapContents contents;
  contents.host_slots = {device(kHost, 3, 4)};
  HostLinks links = steady_links({});
  links.ask_kernel = [](std::uint32_t) {
    return KernelLinkName{KernelLinkName::Kind::gone, {}, ENODEV};
  };
  EXPECT_EQ(step.run(contents, links, t0).snapshot.removed_per_cpu[0].skbs, 4u);
  step.account_removed({kHost, 3, 0}, device(kHost, 3, 7).per_cpu);
  const auto result = step.run(MapContents{}, links, t0 + host_options().gone_grace);
  EXPECT_TRUE(result.deletions.empty());
  EXPECT_EQ(result.snapshot.removed_per_cpu[0].skbs, 7u);
}

}  // namespace
}  // namespace netif_rx
