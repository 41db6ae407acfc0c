// namespaces: all: a name left in device_names without its counters entry
// (a device deleted while the probe was creating it) is swept, so the names
// map never fills with leftovers and new devices of other namespaces keep
// getting named.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "bpf_maps.h"
#include "exporter_process.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

bool holds(const std::vector<netif_rx_device_key>& keys, const netif_rx_device_key& key) {
  return std::any_of(keys.begin(), keys.end(), [&](const netif_rx_device_key& k) {
    return k.netns_inum == key.netns_inum && k.ifindex == key.ifindex;
  });
}

TEST(OrphanNamesTest, ANameWithoutCountersIsSweptAndLiveNamesStay) {
  ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
  // The probe records names only for devices of other namespaces than the
  // exporter's: the exporter runs in `home`, the packets arrive in `away`.
  TestNetwork network("nrx" + std::to_string(::getpid() % 100000) + "o");
  const std::string home = network.add_namespace("h");
  const std::string away = network.add_namespace("a");
  const VethPair pair = network.add_veth_pair("h", home, "a", away, 0);
  ExporterProcess exporter("poll_interval: 100ms\nnamespaces: all\n", {}, home);
  ASSERT_TRUE(exporter.wait_ready()) << exporter.log();

  ASSERT_EQ(send_udp(home, 0, pair.b.address, 5, 10), 5);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto names_before = map_keys(exporter.pid(), "device_names");
  ASSERT_FALSE(names_before.empty()) << "no name recorded for the device in the other namespace";

  const netif_rx_device_key orphan{1, 999999, 0};  // no namespace has inode 1
  ASSERT_TRUE(put_device_name(exporter.pid(), orphan, "gone0"));
  ASSERT_TRUE(holds(map_keys(exporter.pid(), "device_names"), orphan));

  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // several polls
  const auto names_after = map_keys(exporter.pid(), "device_names");
  EXPECT_FALSE(holds(names_after, orphan));
  for (const auto& key : names_before) {
    EXPECT_TRUE(holds(names_after, key)) << "a live device lost its name: ifindex " << key.ifindex;
  }
  EXPECT_EQ(exporter.stop(), 0) << exporter.log();
}

}  // namespace
}  // namespace netif_rx::test
