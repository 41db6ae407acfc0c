// Churn: 500 veth pairs created and deleted over about a minute while traffic
// flows, as pods come and go on a Kubernetes node. Afterwards the exporter
// names exactly the live devices, its map holds no more entries than there
// are live devices, its memory is back near where it started, and no poll
// failed. The exporter runs in a namespace of the test's own, so that "live
// devices" are all the test's (see device_lifecycle_test.cpp).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "bpf_maps.h"
#include "command.h"
#include "exporter_process.h"
#include "lifecycle_support.h"
#include "series_query.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

constexpr int kPairs = 500;
constexpr int kRounds = 20;  // kPairs / kRounds live at a time, two rounds overlap
constexpr auto kRoundTime = std::chrono::milliseconds(3000);

// A child process in `netns` that sends a raw Ethernet frame (local
// experimental EtherType, broadcast) on every link there except lo, over and
// over, until the returned pipe end is closed (also when the test dies).
struct TrafficChild {
  pid_t pid = -1;
  int keep_alive = -1;  // close to stop the child
};

TrafficChild start_traffic(const std::string& netns) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[1]);
    const int ns = ::open(("/run/netns/" + netns).c_str(), O_RDONLY);
    if (ns < 0 || ::setns(ns, CLONE_NEWNET) != 0) ::_exit(1);
    const int sock = ::socket(AF_PACKET, SOCK_RAW, 0);
    std::array<unsigned char, 60> frame{};
    std::memset(frame.data(), 0xff, 6);  // broadcast
    frame[12] = 0x88;                    // EtherType 0x88B5: local experimental
    frame[13] = 0xB5;
    while (true) {
      pollfd stop{fds[0], POLLIN, 0};
      if (::poll(&stop, 1, 5) != 0) ::_exit(0);  // the parent closed its end
      struct if_nameindex* links = if_nameindex();
      for (auto* link = links; link && link->if_index != 0; ++link) {
        if (std::strcmp(link->if_name, "lo") == 0) continue;
        sockaddr_ll to{};
        to.sll_family = AF_PACKET;
        to.sll_ifindex = static_cast<int>(link->if_index);
        to.sll_halen = 6;
        std::memset(to.sll_addr, 0xff, 6);
        ::sendto(sock, frame.data(), frame.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
      }
      if (links) if_freenameindex(links);
    }
  }
  ::close(fds[0]);
  return {pid, fds[1]};
}

void stop_traffic(TrafficChild& child) {
  if (child.keep_alive >= 0) ::close(child.keep_alive);
  if (child.pid > 0) ::waitpid(child.pid, nullptr, 0);
  child = {};
}

// Runs `commands` with `ip -n netns -batch`; true when all succeeded.
bool ip_batch(const std::string& netns, const std::vector<std::string>& commands) {
  const std::string path = std::filesystem::temp_directory_path() /
                           ("netif_rx_churn_" + std::to_string(::getpid()) + ".batch");
  {
    std::ofstream out(path);
    for (const auto& command : commands) out << command << "\n";
  }
  const bool ok = run_or_fail({"ip", "-n", netns, "-batch", path});
  std::filesystem::remove(path);
  return ok;
}

TEST(DeviceChurnTest, FiveHundredPairsComeAndGoWhileTrafficFlows) {
  ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
  TestNetwork network("nrx" + std::to_string(::getpid() % 100000) + "c");
  const std::string host = network.add_namespace("h");  // the exporter's own
  const std::string peers = network.add_namespace("p");
  for (const auto& ns : {host, peers}) {
    // No IPv6 chatter on the new links: only the test's frames move.
    run_or_fail(
        {"ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv6.conf.default.disable_ipv6=1"});
  }
  // In the sanitizer build, AddressSanitizer keeps freed memory in a
  // quarantine (256 MiB by default) to catch use-after-free: resident memory
  // would measure the quarantine, not the exporter. Turn it off for this
  // exporter; LeakSanitizer still checks for leaks when it exits.
  const char* previous = std::getenv("ASAN_OPTIONS");
  const std::string saved = previous ? previous : "";
  ::setenv("ASAN_OPTIONS",
           (saved + (saved.empty() ? "" : ":") +
            "quarantine_size_mb=0:thread_local_quarantine_size_kb=0")
               .c_str(),
           1);
  ExporterProcess exporter("poll_interval: 200ms\n", {}, host);
  if (previous) {
    ::setenv("ASAN_OPTIONS", saved.c_str(), 1);
  } else {
    ::unsetenv("ASAN_OPTIONS");
  }
  ASSERT_TRUE(exporter.wait_ready()) << exporter.log();

  // Memory once every HTTP worker thread has served: the queue hands
  // connections to its workers in turn, and each one's first request touches
  // its buffers and allocator caches once (bounded, not a leak).
  for (int i = 0; i < 300; ++i) exporter.scrape();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const std::uint64_t rss_before = resident_bytes(exporter.pid());

  const std::string p = network.prefix();
  const auto host_end = [&](int i) { return p + "h" + std::to_string(i); };
  const auto peer_end = [&](int i) { return p + "p" + std::to_string(i); };
  const int per_round = kPairs / kRounds;
  TrafficChild traffic = start_traffic(peers);
  std::size_t max_exported = 0;
  const auto started = std::chrono::steady_clock::now();
  for (int round = 0; round < kRounds; ++round) {
    const auto round_start = std::chrono::steady_clock::now();
    std::vector<std::string> create;
    std::vector<std::string> up_in_peers;
    for (int i = round * per_round; i < (round + 1) * per_round; ++i) {
      create.push_back("link add " + host_end(i) + " type veth peer name " + peer_end(i) +
                       " netns " + peers);
      create.push_back("link set " + host_end(i) + " up");
      up_in_peers.push_back("link set " + peer_end(i) + " up");
    }
    ASSERT_TRUE(ip_batch(host, create));
    ASSERT_TRUE(ip_batch(peers, up_in_peers));
    if (round > 0) {  // the previous round's pairs go
      std::vector<std::string> remove;
      for (int i = (round - 1) * per_round; i < round * per_round; ++i) {
        remove.push_back("link del " + host_end(i));
      }
      ASSERT_TRUE(ip_batch(host, remove));
    }
    max_exported = std::max(max_exported, devices_of(exporter.scrape()).size());
    std::this_thread::sleep_for(kRoundTime - (std::chrono::steady_clock::now() - round_start));
  }
  const auto churn_time = std::chrono::steady_clock::now() - started;
  // Removed devices never pile up in the export: at any scrape, at most this
  // round's pairs, the last round's (being removed) and lo.
  EXPECT_LE(max_exported, static_cast<std::size_t>(2 * per_round + 1));
  EXPECT_GE(max_exported, static_cast<std::size_t>(per_round)) << "the traffic reached no device";
  // The last round's pairs stay; let traffic reach all of them, then stop it.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  stop_traffic(traffic);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // a few polls

  std::map<std::string, int> live = links_of(host);
  const Series series = exporter.scrape();
  std::set<std::string> exported = devices_of(series);
  std::set<std::string> live_names;
  for (const auto& [name, ifindex] : live) live_names.insert(name);
  exported.erase("lo");  // lo carries the scrapes; the traffic never touched it
  live_names.erase("lo");
  EXPECT_EQ(exported, live_names);
  EXPECT_EQ(live_names.size(), static_cast<std::size_t>(per_round));

  // Map entries: only live devices (lo may have one).
  const auto keys = keys_in(counted_devices(exporter.pid(), netns_inode(host)), netns_inode(host));
  std::set<int> live_ifindexes;
  for (const auto& [name, ifindex] : live) live_ifindexes.insert(ifindex);
  EXPECT_LE(keys.size(), live.size());
  for (const auto& key : keys) {
    EXPECT_TRUE(live_ifindexes.count(static_cast<int>(key.ifindex)))
        << "map entry of a deleted device, ifindex " << key.ifindex;
  }
  EXPECT_LE(keys_in(map_keys(exporter.pid(), "device_names"), netns_inode(host)).size(),
            live.size());

  const std::uint64_t rss_after = resident_bytes(exporter.pid());
  EXPECT_EQ(poll_errors(series), 0) << exporter.log();
  EXPECT_LE(rss_after, rss_before + (4U << 20)) << "resident memory grew by more than 4 MiB";

  EXPECT_EQ(exporter.stop(), 0) << "exit status (a leak fails it in the sanitizer build):\n"
                                << exporter.log();
  std::cout << "churn: " << kPairs << " pairs in "
            << std::chrono::duration_cast<std::chrono::seconds>(churn_time).count()
            << " s; at most " << max_exported
            << " devices exported at once; after: " << exported.size() << " exported, "
            << live_names.size() << " live (lo aside), " << keys.size() << " map entries; RSS "
            << rss_before / 1024 << " KiB before, " << rss_after / 1024 << " KiB after\n";
}

}  // namespace
}  // namespace netif_rx::test
