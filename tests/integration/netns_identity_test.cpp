// Which namespace a device key is, against the real kernel (namespaces: all).
// The probe keys a device of another namespace by (inode, ifindex, salt); where
// the kernel sets struct net's net_cookie at namespace setup (Linux >= 5.12),
// the salt is the cookie's low half, and where it has NS_GET_ID (6.18) the
// attribution reads the same number from each namespace file it opens, so a
// dead namespace's series never takes the owner of the namespace that got
// its inode. Read here three ways: the map key the probe wrote, NS_GET_ID on
// the namespace's file, and SO_NETNS_COOKIE of a socket made inside it.
// Everything the test makes goes when it ends, also when it fails.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <thread>

#include "bpf_maps.h"
#include "exporter_process.h"
#include "lifecycle_support.h"
#include "netns_thread.h"
#include "owners/netns_file.h"
#include "probe/netns_salt.h"
#include "series_query.h"
#include "test_namespaces.h"
#include "util/unique_fd.h"

namespace netif_rx::test {
namespace {

constexpr int kSoNetnsCookie = 71;  // SO_NETNS_COOKIE (Linux 5.14)
// Each datagram to a closed port draws an ICMP error back over the loopback.
constexpr int kOldPackets = 3;
constexpr int kNewPackets = 7;
constexpr int kCycles = 6;
const std::string kInfo = "netif_rx_netns_info";

// In namespace /run/netns/<netns>, on a thread of its own (setns moves only
// that thread; no shell and no `ip netns exec`, which the kernel matrix's
// guest lacks): its loopback up, `datagrams` UDP datagrams to a closed port
// on it (each draws an ICMP error back: 2 packets on lo), and the
// namespace's cookie from that socket (none before Linux 5.14).
std::optional<std::uint64_t> datagrams_and_cookie(const std::string& netns, int datagrams) {
  std::optional<std::uint64_t> cookie;
  const bool entered = run_in_netns(netns, std::nullopt, [&] {
    const UniqueFd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    ASSERT_TRUE(sock.valid());
    ifreq lo{};
    std::strcpy(lo.ifr_name, "lo");
    ASSERT_EQ(::ioctl(sock.get(), SIOCGIFFLAGS, &lo), 0);
    lo.ifr_flags = static_cast<short>(lo.ifr_flags | IFF_UP);
    ASSERT_EQ(::ioctl(sock.get(), SIOCSIFFLAGS, &lo), 0);
    sockaddr_in discard{};
    discard.sin_family = AF_INET;
    discard.sin_port = htons(9);
    discard.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < datagrams; ++i) {
      ASSERT_EQ(::sendto(sock.get(), "x", 1, 0, reinterpret_cast<const sockaddr*>(&discard),
                         sizeof discard),
                1);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // one ICMP error each
    }
    std::uint64_t value = 0;
    socklen_t size = sizeof value;
    if (::getsockopt(sock.get(), SOL_SOCKET, kSoNetnsCookie, &value, &size) == 0) cookie = value;
  });
  EXPECT_TRUE(entered) << "setns into " << netns;
  return cookie;
}

// The salts of the probe's keys in namespace `inode`: all one value, or
// nullopt (none, or more than one).
std::optional<std::uint32_t> probe_salt(pid_t exporter, std::uint32_t inode) {
  const auto keys = keys_in(map_keys(exporter, "device_counters"), inode);
  if (keys.empty()) return std::nullopt;
  for (const auto& key : keys) {
    if (key.netns_salt != keys.front().netns_salt) return std::nullopt;
  }
  return keys.front().netns_salt;
}

NetnsSaltSupport::Kind salt_kind() {
  const NetnsSaltSupport support = netns_salt_support("/sys/kernel/btf/vmlinux");
  EXPECT_NE(support.kind, NetnsSaltSupport::Kind::unknown) << support.detail;
  return support.kind;
}

const char* const kConfig =
    "poll_interval: 100ms\nnamespaces: all\nbpf_stats:\n  mode: off\n"
    "attribution:\n  refresh_interval: 2s\n  bundle_roots: []\n  processes: false\n";

TEST(NetnsIdentity, TheProbesSaltIsTheLowHalfOfTheNamespaceCookie) {
  TestNamespaces namespaces("nid" + std::to_string(::getpid() % 100000) + "s");
  ExporterProcess exporter(kConfig);
  ASSERT_TRUE(exporter.wait_ready()) << exporter.log();
  const auto [name, inode] = namespaces.add();
  ASSERT_NE(inode, 0U);
  const auto cookie = datagrams_and_cookie(name, kOldPackets);
  const Labels info{{"kind", "named"}, {"netns", std::to_string(inode)}, {"netns_name", name}};
  const Series series = scrape_until(
      exporter,
      [&](const Series& s) {
        return loopback_packets(s, inode) == 2 * kOldPackets &&
               s.count(series_key(kInfo, info)) == 1;
      },
      10000);
  EXPECT_EQ(loopback_packets(series, inode), 2 * kOldPackets) << exporter.log();
  EXPECT_EQ(series.count(series_key(kInfo, info)), 1U) << exporter.log();

  const auto salt = probe_salt(exporter.pid(), inode);
  ASSERT_TRUE(salt) << "the probe's keys of namespace " << inode << " have not one salt";
  const NetnsFileIdentity file = open_netns_file("/run/netns/" + name);
  EXPECT_EQ(file.inum, inode);
  if (salt_kind() == NetnsSaltSupport::Kind::net_cookie) {
    ASSERT_TRUE(cookie) << "net_cookie is set at namespace setup here (Linux >= 5.12) but "
                           "SO_NETNS_COOKIE (5.14) is missing: no way to read it";
    EXPECT_EQ(*salt, static_cast<std::uint32_t>(*cookie));
    if (file.id) {
      EXPECT_EQ(*file.id, *cookie);  // NS_GET_ID (6.18) is the cookie
    }
    std::printf("identity: salt %#x, cookie %llu, NS_GET_ID %s\n", *salt,
                static_cast<unsigned long long>(*cookie),
                file.id ? std::to_string(*file.id).c_str() : "missing");
  } else {
    // hash_mix (Linux 5.1-5.11): random, not readable from user space; only
    // the cookie, where it exists (atomic, assigned on first use), differs.
    EXPECT_FALSE(file.id) << "NS_GET_ID without a net_cookie set at namespace setup";
    EXPECT_NE(*salt, 0U) << "a lazily set cookie (5.7-5.11) read as the salt";
    std::printf("identity: salt %#x (hash_mix), no id to compare\n", *salt);
  }
  EXPECT_EQ(exporter.stop(), 0) << exporter.log();
}

// A named namespace is attributed, then deleted; a new one that gets its inode
// (no packet yet) is scanned while the dead namespace's series is still
// there (stale_after 10m): with NS_GET_ID the dead series' namespace is
// "unknown", never the new one's name; without, the inode decides (the
// documented race). Once the new namespace receives, it is named.
TEST(NetnsIdentity, ADeadNamespaceNeverTakesTheOwnerOfItsInodesNextNamespace) {
  TestNamespaces namespaces("nid" + std::to_string(::getpid() % 100000) + "r");
  ExporterProcess exporter(kConfig);
  ASSERT_TRUE(exporter.wait_ready()) << exporter.log();
  const bool ids_checked = salt_kind() == NetnsSaltSupport::Kind::net_cookie &&
                           open_netns_file("/proc/self/ns/net").id.has_value();

  std::string dead;
  std::string reused;
  std::uint32_t inode = 0;
  std::uint32_t dead_salt = 0;
  int attempts = 0;
  for (int cycle = 0; cycle < kCycles && reused.empty(); ++cycle) {
    const auto [name, got] = namespaces.add();
    ASSERT_NE(got, 0U);
    send_loopback_datagrams(name, kOldPackets);
    const Labels named{{"kind", "named"}, {"netns", std::to_string(got)}, {"netns_name", name}};
    const Series resolved = scrape_until(
        exporter, [&](const Series& s) { return s.count(series_key(kInfo, named)) == 1; }, 10000);
    ASSERT_EQ(resolved.count(series_key(kInfo, named)), 1U) << exporter.log();
    const auto salt = probe_salt(exporter.pid(), got);
    ASSERT_TRUE(salt);
    if (ids_checked) {
      const NetnsFileIdentity file = open_netns_file("/run/netns/" + name);
      ASSERT_TRUE(file.id);
      EXPECT_EQ(*salt, static_cast<std::uint32_t>(*file.id));
    }
    namespaces.remove(name);
    dead = name;
    inode = got;
    dead_salt = *salt;
    reused = namespace_with_inode(namespaces, inode, attempts);
    namespaces.remove_all_but(reused);
  }
  ASSERT_FALSE(reused.empty()) << "no new namespace got a deleted namespace's inode number in "
                               << kCycles << " cycles (" << attempts << " namespaces created)";
  const NetnsFileIdentity next = open_netns_file("/run/netns/" + reused);
  ASSERT_EQ(next.inum, inode);
  if (ids_checked) {
    ASSERT_TRUE(next.id);
    EXPECT_NE(static_cast<std::uint32_t>(*next.id), dead_salt);
  }
  std::printf("identity reuse: inode %u of %s (salt %#x) reused by %s (id %s; %d created)\n", inode,
              dead.c_str(), dead_salt, reused.c_str(),
              next.id ? std::to_string(*next.id).c_str() : "missing", attempts);

  // Two scans that began after the new namespace was made (refresh: 2 s).
  const std::string scans = "netif_rx_exporter_netns_attribution_scans_total";
  const double scans_before = exporter.scrape()[scans];
  const std::string netns = std::to_string(inode);
  const Labels wrong{{"netns", netns}, {"netns_name", reused}};
  int scrapes = 0;
  int wrong_owner = 0;
  Series series;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (std::chrono::steady_clock::now() < deadline) {
    series = exporter.scrape();
    ++scrapes;
    if (count_where(series, kInfo, wrong) > 0) ++wrong_owner;
    if (series[scans] >= scans_before + 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GE(series[scans], scans_before + 2) << exporter.log();
  EXPECT_EQ(loopback_packets(series, inode), 2 * kOldPackets)
      << "the dead namespace's series is gone";
  if (ids_checked) {
    EXPECT_EQ(series.count(series_key(kInfo, {{"kind", "unknown"}, {"netns", netns}})), 1U)
        << exporter.log();
    EXPECT_EQ(wrong_owner, 0) << "the dead namespace's series showed " << reused << "'s name";
  } else {
    // Without NS_GET_ID the inode decides: the new namespace's name.
    EXPECT_EQ(count_where(series, kInfo, wrong), 1);
  }
  std::printf("identity reuse: %d scrapes over 2 scans, %d with %s's name on %s's series\n",
              scrapes, wrong_owner, reused.c_str(), dead.c_str());

  send_loopback_datagrams(reused, kNewPackets);
  const Labels named{{"kind", "named"}, {"netns", netns}, {"netns_name", reused}};
  series = scrape_until(
      exporter,
      [&](const Series& s) {
        return loopback_packets(s, inode) == 2 * kNewPackets &&
               s.count(series_key(kInfo, named)) == 1;
      },
      10000);
  EXPECT_EQ(loopback_packets(series, inode), 2 * kNewPackets) << exporter.log();
  EXPECT_EQ(series.count(series_key(kInfo, named)), 1U) << exporter.log();
  EXPECT_EQ(count_where(series, kInfo, {{"netns", netns}}), 1);
  const auto salt = probe_salt(exporter.pid(), inode);
  ASSERT_TRUE(salt) << "the dead namespace's key is still beside the new one's";
  if (ids_checked) {
    EXPECT_EQ(*salt, static_cast<std::uint32_t>(*next.id));
  }
  EXPECT_EQ(exporter.stop(), 0) << exporter.log();
}

}  // namespace
}  // namespace netif_rx::test
