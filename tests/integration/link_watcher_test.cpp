// The link watcher against the real kernel, in a namespace of the test's own:
// bursts of link events that overflow its socket (ENOBUFS) must still leave
// its view exact, through the resync they trigger; dumps interrupted by
// churn must neither fail nor take a live link for gone.
#include "devices/link_watcher.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "command.h"
#include "netns_thread.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

constexpr int kPairs = 100;

// Builds the watcher on a thread that entered `netns`: its sockets and its
// own thread (which inherits the namespace) then watch that namespace.
std::unique_ptr<LinkWatcher> watcher_in(const std::string& netns, LinkWatcherOptions options) {
  std::unique_ptr<LinkWatcher> watcher;
  run_in_netns(netns, std::nullopt,
               [&] { watcher = std::make_unique<LinkWatcher>(std::move(options)); });
  return watcher;
}

bool ip_batch(const std::string& netns, const std::vector<std::string>& commands) {
  const std::string path = std::filesystem::temp_directory_path() /
                           ("netif_rx_watcher_" + std::to_string(::getpid()) + ".batch");
  {
    std::ofstream out(path);
    for (const auto& command : commands) out << command << "\n";
  }
  const bool ok = run_or_fail({"ip", "-n", netns, "-batch", path});
  std::filesystem::remove(path);
  return ok;
}

// Waits up to 10 s for `done`.
bool eventually(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

TEST(LinkWatcherTest, StaysExactThroughBurstsThatOverflowItsSocket) {
  ASSERT_EQ(::geteuid(), 0U) << "the integration tests create links: run them as root";
  TestNetwork network("nrx" + std::to_string(::getpid() % 100000) + "w");
  const std::string netns = network.add_namespace("n");

  std::mutex mutex;
  std::condition_variable changed;
  std::set<std::uint32_t> removed;
  int errors = 0;
  // While `hold` is set, the watcher thread stops in on_removed (under its
  // own lock, so view() must not be called then): events pile up in its
  // socket until the kernel drops them.
  bool hold = false;
  bool held = false;
  LinkWatcherOptions options;
  options.resync_interval = std::chrono::hours(1);  // only ENOBUFS triggers one
  options.receive_buffer = 1;                       // the kernel's minimum
  options.on_removed = [&](std::uint32_t ifindex) {
    std::unique_lock lock(mutex);
    removed.insert(ifindex);
    held = hold;
    changed.notify_all();
    changed.wait(lock, [&] { return !hold; });
    held = false;
  };
  options.on_error = [&](const std::string&) {
    std::lock_guard lock(mutex);
    ++errors;
  };
  auto watcher = watcher_in(netns, std::move(options));
  ASSERT_TRUE(watcher);
  EXPECT_EQ(watcher->view()->size(), 1U);  // lo
  EXPECT_EQ(watcher->resyncs(), 1U);

  // veth pairs (no dummy driver needed): 2 * kPairs links.
  const std::string p = network.prefix();
  std::vector<std::string> create;
  std::set<std::string> expected{"lo"};
  for (int i = 0; i < kPairs; ++i) {
    create.push_back("link add " + p + std::to_string(i) + "a type veth peer name " + p +
                     std::to_string(i) + "b");
    expected.insert(p + std::to_string(i) + "a");
    expected.insert(p + std::to_string(i) + "b");
  }
  {
    std::unique_lock lock(mutex);
    hold = true;
  }
  run_or_fail({"ip", "-n", netns, "link", "add", p + "x", "type", "veth", "peer", "name", p + "y"});
  run_or_fail({"ip", "-n", netns, "link", "del", p + "x"});
  {
    std::unique_lock lock(mutex);
    EXPECT_TRUE(changed.wait_for(lock, std::chrono::seconds(10), [&] { return held; }));
  }
  const bool created = ip_batch(netns, create);  // while the watcher is held
  {
    std::lock_guard lock(mutex);
    hold = false;
  }
  changed.notify_all();
  ASSERT_TRUE(created);
  const auto names = [&] {
    std::set<std::string> out;
    // Held here: a range-for over *watcher->view() would free the view
    // under the loop once the watcher publishes a new one.
    const auto view = watcher->view();
    for (const auto& [ifindex, link] : *view) out.insert(link.name);
    return out;
  };
  EXPECT_TRUE(eventually([&] { return names() == expected; })) << names().size() << " links";
  EXPECT_GT(watcher->resyncs(), 1U) << "the burst was expected to overflow the socket";
  {
    std::lock_guard lock(mutex);
    EXPECT_GT(errors, 0);  // each ENOBUFS is reported
  }

  // Renamed in a burst: every new name shows, nothing else.
  std::vector<std::string> rename;
  expected = {"lo"};
  for (int i = 0; i < kPairs; ++i) {
    for (const char* end : {"a", "b"}) {
      const std::string name = p + std::to_string(i) + end;
      rename.push_back("link set " + name + " name " + name + "r");
      expected.insert(name + "r");
    }
  }
  ASSERT_TRUE(ip_batch(netns, rename));
  EXPECT_TRUE(eventually([&] { return names() == expected; }));

  // Deleted in a burst: every ifindex reported removed, the view back to lo.
  std::set<std::uint32_t> live;
  const auto before_deletion = watcher->view();
  for (const auto& [ifindex, link] : *before_deletion) {
    if (link.name != "lo") live.insert(ifindex);
  }
  std::vector<std::string> remove;
  for (int i = 0; i < kPairs; ++i) remove.push_back("link del " + p + std::to_string(i) + "ar");
  ASSERT_TRUE(ip_batch(netns, remove));
  EXPECT_TRUE(eventually([&] { return names() == std::set<std::string>{"lo"}; }));
  EXPECT_TRUE(eventually([&] {
    std::lock_guard lock(mutex);
    return std::includes(removed.begin(), removed.end(), live.begin(), live.end());
  }));
}

// Namespaces and pods made by the hundred change the links during every
// attempt of a dump (NLM_F_DUMP_INTR). The watcher starts anyway, never
// reports a failed listing, never takes a live link for gone (its counts
// would be moved to the removed devices'), and ends exact once the churn stops.
TEST(LinkWatcherTest, DumpsInterruptedByChurnNeitherFailNorRemoveLiveLinks) {
  ASSERT_EQ(::geteuid(), 0U) << "the integration tests create links: run them as root";
  TestNetwork network("nrx" + std::to_string(::getpid() % 100000) + "c");
  const std::string netns = network.add_namespace("n");
  const std::string p = network.prefix();
  constexpr int kStablePairs = 300;  // a dump of several datagrams
  std::vector<std::string> create;
  std::set<std::string> expected{"lo"};
  for (int i = 0; i < kStablePairs; ++i) {
    const std::string name = p + std::to_string(i);
    create.push_back("link add " + name + "a type veth peer name " + name + "b");
    expected.insert(name + "a");
    expected.insert(name + "b");
  }
  ASSERT_TRUE(ip_batch(netns, create));
  // The churn: one pair added and deleted, over and over (bounded).
  std::vector<std::string> churn;
  for (int round = 0; round < 700; ++round) {
    churn.push_back("link add " + p + "xa type veth peer name " + p + "xb");
    churn.push_back("link del " + p + "xa");
  }

  std::mutex mutex;
  std::set<std::uint32_t> removed;
  std::vector<std::string> errors;
  LinkWatcherOptions options;
  options.resync_interval = std::chrono::milliseconds(20);  // dumps all through the churn
  options.on_removed = [&](std::uint32_t ifindex) {
    std::lock_guard lock(mutex);
    removed.insert(ifindex);
  };
  options.on_error = [&](const std::string& message) {
    std::lock_guard lock(mutex);
    errors.push_back(message);
  };
  std::thread churner([&] { ip_batch(netns, churn); });
  std::unique_ptr<LinkWatcher> watcher;
  std::uint64_t interrupted = 0;
  int started = 0;
  // Watchers started during the churn: each one's first dump is likely
  // interrupted.
  for (int i = 0; i < 20; ++i) {
    LinkWatcherOptions each = options;
    each.resync_interval = std::chrono::hours(1);
    each.on_removed = nullptr;
    each.on_error = nullptr;
    std::unique_ptr<LinkWatcher> one;
    ASSERT_NO_THROW(one = watcher_in(netns, std::move(each)));
    ASSERT_TRUE(one);
    ++started;
    interrupted += one->interrupted_dumps();
    if (i == 0) watcher = watcher_in(netns, options);
  }
  churner.join();
  ASSERT_TRUE(watcher);
  std::set<std::uint32_t> stable;
  const auto names = [&] {
    std::set<std::string> out;
    const auto view = watcher->view();
    for (const auto& [ifindex, link] : *view) out.insert(link.name);
    return out;
  };
  EXPECT_TRUE(eventually([&] { return names() == expected; })) << names().size() << " links";
  // Held while it is read: the watcher's thread may publish a newer view and drop this one.
  const auto view = watcher->view();
  for (const auto& [ifindex, link] : *view) stable.insert(ifindex);
  interrupted += watcher->interrupted_dumps();
  std::printf(
      "link dumps during churn: %llu complete, %llu interrupted at every attempt (and %d "
      "watchers started)\n",
      static_cast<unsigned long long>(watcher->resyncs()),
      static_cast<unsigned long long>(interrupted), started);
  std::lock_guard lock(mutex);
  for (std::uint32_t ifindex : stable) {
    EXPECT_FALSE(removed.count(ifindex)) << "live ifindex " << ifindex << " reported gone";
  }
  EXPECT_TRUE(errors.empty()) << errors.front();
}

}  // namespace
}  // namespace netif_rx::test
