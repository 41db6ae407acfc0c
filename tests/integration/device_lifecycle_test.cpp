// Device identity and lifecycle against the real kernel: renames, deletions,
// a reused ifindex, and the same ifindex in several namespaces.
//
// Each test runs its exporter inside a network namespace of its own, which is
// then the exporter's "host" namespace (the probe keys it by the exporter's
// own namespace inode). The tests thereby own every device the exporter
// names and can assert exactly, while other tests use the machine.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "bpf_maps.h"
#include "command.h"
#include "exporter_process.h"
#include "lifecycle_support.h"
#include "pipeline/cpu_list.h"
#include "series_query.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

constexpr int kPayloadBytes = 100;
const std::string kPackets = "netif_rx_packets_total";
const std::string kBytes = "netif_rx_bytes_total";

std::string test_prefix(char test) {
  return "nrx" + std::to_string(::getpid() % 100000) + std::string(1, test);
}

bool has_key(const std::vector<netif_rx_device_key>& keys, std::uint32_t netns, int ifindex) {
  for (const auto& key : keys) {
    if (key.netns_inum == netns && key.ifindex == static_cast<std::uint32_t>(ifindex)) return true;
  }
  return false;
}

class DeviceLifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
  }

 public:
  // Starts an exporter in `netns` and waits until it is ready.
  static std::unique_ptr<ExporterProcess> start_exporter(const std::string& netns,
                                                         const std::string& config) {
    auto exporter = std::make_unique<ExporterProcess>(config, std::vector<std::string>{}, netns);
    EXPECT_TRUE(exporter->wait_ready()) << "the exporter did not become ready; its log:\n"
                                        << exporter->log();
    return exporter;
  }
};

TEST_F(DeviceLifecycleTest, RenameWhileTrafficFlowsMovesTheWholeCountToTheNewName) {
  TestNetwork network(test_prefix('r'));
  const std::string host = network.add_namespace("h");
  const std::string peer = network.add_namespace("a");
  const VethPair pair = network.add_veth_pair("v", host, "p", peer, 0);
  const std::string renamed = network.prefix() + "n";
  auto exporter = start_exporter(host, "poll_interval: 100ms\n");

  std::atomic<bool> stop{false};
  std::thread traffic([&] {
    while (!stop) send_udp(peer, 0, pair.a.address, 20, kPayloadBytes);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  scrape_until(*exporter, [&](const Series& s) { return devices_of(s).count(pair.a.name) > 0; });
  network.rename_link(host, pair.a.name, renamed);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  stop = true;
  traffic.join();

  // The kernel's own count of what the device received, before and after the
  // rename: the exporter must show all of it under the new name.
  const std::uint64_t received = link_statistic(host, renamed, "rx_packets");
  ASSERT_GT(received, 0U);
  const Series after = scrape_until(*exporter, [&](const Series& s) {
    return sum_where(s, kPackets, {{"device", renamed}}) >= static_cast<double>(received);
  });
  EXPECT_EQ(devices_of(after).count(pair.a.name), 0U) << "the old name's series must be gone";
  EXPECT_EQ(sum_where(after, kPackets, {{"device", renamed}}), static_cast<double>(received));
  // veth counts the Ethernet header in rx_bytes; skb->len at the tracepoint
  // no longer has it. (Not only our datagrams: after the link was down, the
  // host resolves the peer again, and the ARP reply counts too.)
  const std::uint64_t received_bytes = link_statistic(host, renamed, "rx_bytes");
  EXPECT_EQ(sum_where(after, kBytes, {{"device", renamed}}),
            static_cast<double>(received_bytes - 14 * received));
  EXPECT_EQ(poll_errors(after), 0);
}

// Deletes a counted device, re-creates one with the same ifindex, and checks
// that it starts from zero: with `index_a` 0 the namespace's next ifindex (in
// the own-namespace array), else that ifindex (beyond a small array: the hash).
void check_deletion_and_reuse(char tag, const std::string& config, int index_a) {
  TestNetwork network(test_prefix(tag));
  const std::string host = network.add_namespace("h");
  const std::string peer = network.add_namespace("a");
  VethPair pair = network.add_veth_pair("v", host, "p", peer, 0, index_a);
  const int ifindex = network.ifindex(host, pair.a.name);
  const std::uint32_t host_inode = netns_inode(host);
  auto exporter = DeviceLifecycleTest::start_exporter(host, config);

  ASSERT_EQ(send_udp(peer, 0, pair.a.address, 500, kPayloadBytes), 500);
  Series series = scrape_until(*exporter, [&](const Series& s) {
    return sum_where(s, kPackets, {{"device", pair.a.name}}) >= 500;
  });
  ASSERT_EQ(sum_where(series, kPackets, {{"device", pair.a.name}}), 500);
  ASSERT_TRUE(has_key(counted_devices(exporter->pid(), host_inode), host_inode, ifindex));
  // Counted in the hash beyond the array, else in the array.
  EXPECT_EQ(has_key(map_keys(exporter->pid(), "device_counters"), host_inode, ifindex),
            index_a > 0);

  // Deleted: series and map entries gone at the next poll.
  network.delete_link(host, pair.a.name);
  series =
      scrape_until(*exporter, [&](const Series& s) { return !devices_of(s).count(pair.a.name); });
  EXPECT_EQ(devices_of(series).count(pair.a.name), 0U);
  EXPECT_FALSE(has_key(counted_devices(exporter->pid(), host_inode), host_inode, ifindex));
  EXPECT_FALSE(has_key(map_keys(exporter->pid(), "device_names"), host_inode, ifindex));

  // Re-created with the same ifindex (and name): starts from zero.
  pair = network.add_veth_pair("v", host, "p", peer, 0, ifindex);
  ASSERT_EQ(network.ifindex(host, pair.a.name), ifindex);
  ASSERT_EQ(send_udp(peer, 1 % present_cpus().size(), pair.a.address, 300, kPayloadBytes), 300);
  series = scrape_until(*exporter, [&](const Series& s) {
    return sum_where(s, kPackets, {{"device", pair.a.name}}) >= 300;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  series = exporter->scrape();
  EXPECT_EQ(sum_where(series, kPackets, {{"device", pair.a.name}}), 300);

  // Deleted and re-created at once, without a poll in between: still zero.
  network.delete_link(host, pair.a.name);
  pair = network.add_veth_pair("v", host, "p", peer, 0, ifindex);
  ASSERT_EQ(send_udp(peer, 0, pair.a.address, 70, kPayloadBytes), 70);
  series = scrape_until(*exporter, [&](const Series& s) {
    return sum_where(s, kPackets, {{"device", pair.a.name}}) == 70;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  series = exporter->scrape();
  EXPECT_EQ(sum_where(series, kPackets, {{"device", pair.a.name}}), 70);
  EXPECT_EQ(poll_errors(series), 0);
}

TEST_F(DeviceLifecycleTest, DeletedDeviceIsGoneAndOneWithTheSameIfindexStartsFromZero) {
  check_deletion_and_reuse('d', "poll_interval: 100ms\n", 0);
}

TEST_F(DeviceLifecycleTest, SameAtAnIfindexBeyondTheOwnNamespaceArray) {
  // max_devices 8: array slots 0-7; ifindex 40 is counted in the hash.
  check_deletion_and_reuse('x', "poll_interval: 100ms\nmax_devices: 8\n", 40);
}

// Creates `name` with ifindex 2 in `netns` and its peer `peer_name` in
// `peer_netns`, addressed like TestNetwork's pairs (192.0.2.0/30 subnets).
// Returns the address of `name`. Both go when their namespaces go.
std::string add_ifindex2_device(const std::string& netns, const std::string& name,
                                const std::string& peer_netns, const std::string& peer_name,
                                int subnet) {
  const std::string address = "192.0.2." + std::to_string(4 * subnet + 1);
  const std::string peer_address = "192.0.2." + std::to_string(4 * subnet + 2);
  run_or_fail({"ip", "-n", netns, "link", "add", name, "index", "2", "type", "veth", "peer", "name",
               peer_name, "netns", peer_netns});
  const auto mac = [](const std::string& ns, const std::string& link) {
    std::string out =
        run_command({"ip", "netns", "exec", ns, "cat", "/sys/class/net/" + link + "/address"})
            .output;
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
  };
  for (const auto& [ns, link, own, other, other_ns, other_link] :
       {std::tuple{netns, name, address, peer_address, peer_netns, peer_name},
        std::tuple{peer_netns, peer_name, peer_address, address, netns, name}}) {
    run_or_fail({"ip", "netns", "exec", ns, "sysctl", "-q", "-w",
                 "net.ipv6.conf." + link + ".disable_ipv6=1"});
    run_or_fail({"ip", "-n", ns, "addr", "add", own + "/30", "dev", link});
    run_or_fail({"ip", "-n", ns, "neigh", "replace", other, "lladdr", mac(other_ns, other_link),
                 "nud", "permanent", "dev", link});
    run_or_fail({"ip", "-n", ns, "link", "set", link, "up"});
  }
  return address;
}

TEST_F(DeviceLifecycleTest, SameIfindexAndNameInThreeNamespaces) {
  TestNetwork network(test_prefix('s'));
  const std::string host = network.add_namespace("h");  // the exporter's own
  const std::string a = network.add_namespace("a");
  const std::string b = network.add_namespace("b");
  const std::string t = network.add_namespace("t");  // sends to the host's eth0
  const std::string p = network.prefix();
  const std::string host_eth0 = add_ifindex2_device(host, "eth0", t, p + "t", 0);
  const std::string a_eth0 = add_ifindex2_device(a, "eth0", host, p + "a", 1);
  const std::string b_eth0 = add_ifindex2_device(b, "eth0", host, p + "b", 2);
  for (const auto& ns : {host, a, b}) ASSERT_EQ(network.ifindex(ns, "eth0"), 2) << ns;

  auto all = start_exporter(host, "poll_interval: 100ms\nnamespaces: all\nstale_after: 4s\n");
  auto host_only = start_exporter(host, "poll_interval: 100ms\n");

  ASSERT_EQ(send_udp(t, 0, host_eth0, 700, kPayloadBytes), 700);
  ASSERT_EQ(send_udp(host, 0, a_eth0, 300, kPayloadBytes), 300);
  ASSERT_EQ(send_udp(host, 0, b_eth0, 500, kPayloadBytes), 500);

  const std::map<std::string, double> expected{{std::to_string(netns_inode(host)), 700},
                                               {std::to_string(netns_inode(a)), 300},
                                               {std::to_string(netns_inode(b)), 500}};
  const auto counts_reached = [&](const Series& s) {
    for (const auto& [netns, n] : expected) {
      if (sum_where(s, kPackets, {{"device", "eth0"}, {"netns", netns}}) < n) return false;
    }
    return true;
  };
  Series series = scrape_until(*all, counts_reached);
  for (const auto& [netns, n] : expected) {
    EXPECT_EQ(sum_where(series, kPackets, {{"device", "eth0"}, {"netns", netns}}), n)
        << "eth0 of netns " << netns;
    EXPECT_EQ(sum_where(series, kBytes, {{"device", "eth0"}, {"netns", netns}}),
              n * udp_skb_len(kPayloadBytes));
    // Not of the per-CPU class (a veth, or another namespace's): summed.
    EXPECT_EQ(count_where(series, kPackets, {{"device", "eth0"}, {"netns", netns}}), 1);
  }
  // Every series carries netns, the host's included.
  EXPECT_EQ(count_where(series, kPackets, {}), [&] {
    int with_netns = 0;
    for (const auto& [key, value] : series) {
      if (metric_of(key) == kPackets && labels_of(key).count("netns")) ++with_netns;
    }
    return with_netns;
  }());

  // Host mode: only the exporter's own namespace, no netns label.
  const Series host_series = scrape_until(*host_only, [&](const Series& s) {
    return sum_where(s, kPackets, {{"device", "eth0"}}) >= 700;
  });
  EXPECT_EQ(sum_where(host_series, kPackets, {{"device", "eth0"}}), 700);
  EXPECT_EQ(count_where(host_series, kPackets, {{"device", "eth0"}}), 1);
  for (const auto& [key, value] : host_series) {
    EXPECT_EQ(labels_of(key).count("netns"), 0U) << key;
  }
  EXPECT_EQ(devices_of(host_series).count(p + "t"), 0U) << "lives in namespace t";

  // Idle for stale_after: the other namespaces' devices are forgotten (series
  // and map entries); the host's, followed through netlink, stay.
  const std::string host_netns = std::to_string(netns_inode(host));
  const std::string a_netns = std::to_string(netns_inode(a));
  const std::string b_netns = std::to_string(netns_inode(b));
  series = scrape_until(
      *all,
      [&](const Series& s) {
        return devices_of(s, a_netns).empty() && devices_of(s, b_netns).empty();
      },
      12000);
  EXPECT_TRUE(devices_of(series, a_netns).empty());
  EXPECT_TRUE(devices_of(series, b_netns).empty());
  EXPECT_EQ(sum_where(series, kPackets, {{"device", "eth0"}, {"netns", host_netns}}), 700);
  const auto keys = counted_devices(all->pid(), netns_inode(host));
  EXPECT_FALSE(has_key(keys, netns_inode(a), 2));
  EXPECT_FALSE(has_key(keys, netns_inode(b), 2));
  EXPECT_TRUE(has_key(keys, netns_inode(host), 2));
  EXPECT_FALSE(has_key(map_keys(all->pid(), "device_names"), netns_inode(a), 2));

  // Moving again, it comes back from zero.
  ASSERT_EQ(send_udp(host, 0, a_eth0, 40, kPayloadBytes), 40);
  series = scrape_until(*all, [&](const Series& s) {
    return sum_where(s, kPackets, {{"device", "eth0"}, {"netns", a_netns}}) >= 40;
  });
  EXPECT_EQ(sum_where(series, kPackets, {{"device", "eth0"}, {"netns", a_netns}}), 40);
  EXPECT_EQ(poll_errors(series), 0);
}

}  // namespace
}  // namespace netif_rx::test
