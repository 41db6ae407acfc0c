// Events about a live device never reset its counters: joining and leaving a
// bridge (the bridge sends RTM_DELLINK with family AF_BRIDGE when a port
// leaves), the bridge deleted under it, rename, down and up, MTU and master
// changes, joining and leaving a bond. Only a real deletion does.
//
// The exporter runs in a namespace of the test's own (its "host" namespace);
// the packets come over a veth pair from a second namespace, so every count
// is exact.
#include <gtest/gtest.h>
#include <unistd.h>

#include <functional>
#include <string>

#include "command.h"
#include "exporter_process.h"
#include "lifecycle_support.h"
#include "series_query.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

constexpr int kBurst = 40;
const std::string kPackets = "netif_rx_packets_total";

class LiveDeviceEventsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
    home_ = network_.add_namespace("h");
    peer_ = network_.add_namespace("p");
    // No IPv6 chatter from the bridges and bonds the tests add: only the
    // test's frames cross the port, so every count is exact.
    for (const auto& ns : {home_, peer_}) {
      ASSERT_TRUE(run_or_fail({"ip", "netns", "exec", ns, "sysctl", "-q", "-w",
                               "net.ipv6.conf.default.disable_ipv6=1"}));
    }
    pair_ = network_.add_veth_pair("v", home_, "q", peer_, 0);
    port_ = pair_.a.name;
    exporter_ = std::make_unique<ExporterProcess>("poll_interval: 100ms\n",
                                                  std::vector<std::string>{}, home_);
    ASSERT_TRUE(exporter_->wait_ready()) << exporter_->log();
  }

  bool ip(std::vector<std::string> args) {
    args.insert(args.begin(), {"ip", "-n", home_});
    return run_or_fail(args);
  }

  // Sends a burst to the port and expects its series to have grown by it,
  // from what it held: never reset.
  void expect_count_continues(const std::string& after) {
    ASSERT_EQ(send_udp(peer_, 0, pair_.a.address, kBurst, 20), kBurst) << after;
    const double wanted = expected_ + kBurst;
    const Series series = scrape_until(*exporter_, [&](const Series& s) {
      return sum_where(s, kPackets, {{"device", port_}}) >= wanted;
    });
    const double now = sum_where(series, kPackets, {{"device", port_}});
    EXPECT_GE(now, wanted) << "after " << after << ": the count went back";
    // The burst, and at most a stray frame the kernel itself may deliver to
    // the port while a bridge is torn down: a reset would show far less.
    EXPECT_LE(now, wanted + 2) << "after " << after;
    expected_ = now;
  }

  TestNetwork network_{"nrx" + std::to_string(::getpid() % 100000) + "e"};
  std::string home_;
  std::string peer_;
  VethPair pair_;
  std::string port_;
  std::unique_ptr<ExporterProcess> exporter_;
  double expected_ = 0;
};

TEST_F(LiveDeviceEventsTest, BridgePortJoinLeaveAndBridgeDeletionKeepTheCount) {
  const std::string bridge = network_.prefix() + "br";
  expect_count_continues("start");
  ASSERT_TRUE(ip({"link", "add", bridge, "type", "bridge"}));
  ASSERT_TRUE(ip({"link", "set", bridge, "up"}));
  ASSERT_TRUE(ip({"link", "set", port_, "master", bridge}));
  expect_count_continues("joining a bridge");
  ASSERT_TRUE(ip({"link", "set", port_, "nomaster"}));
  expect_count_continues("leaving the bridge (RTM_DELLINK, AF_BRIDGE)");
  ASSERT_TRUE(ip({"link", "set", port_, "master", bridge}));
  expect_count_continues("joining again");
  ASSERT_TRUE(ip({"link", "del", bridge}));
  expect_count_continues("the bridge deleted under it");
  EXPECT_EQ(exporter_->stop(), 0) << exporter_->log();
}

TEST_F(LiveDeviceEventsTest, RenameDownUpMtuAndMasterChangesKeepTheCount) {
  const std::string first = network_.prefix() + "b1";
  const std::string second = network_.prefix() + "b2";
  expect_count_continues("start");
  ASSERT_TRUE(ip({"link", "set", port_, "mtu", "1400"}));
  expect_count_continues("an MTU change");
  ASSERT_TRUE(ip({"link", "set", port_, "down"}));
  ASSERT_TRUE(ip({"link", "set", port_, "up"}));
  expect_count_continues("down and up");
  const std::string renamed = port_ + "n";
  network_.rename_link(home_, port_, renamed);
  port_ = renamed;
  ASSERT_TRUE(ip({"link", "set", port_, "up"}));
  expect_count_continues("a rename");
  for (const auto& bridge : {first, second}) {
    ASSERT_TRUE(ip({"link", "add", bridge, "type", "bridge"}));
    ASSERT_TRUE(ip({"link", "set", bridge, "up"}));
  }
  ASSERT_TRUE(ip({"link", "set", port_, "master", first}));
  ASSERT_TRUE(ip({"link", "set", port_, "master", second}));  // master change
  expect_count_continues("a master change");
  ASSERT_TRUE(ip({"link", "del", second}));
  ASSERT_TRUE(ip({"link", "del", first}));
  expect_count_continues("both bridges deleted");
  EXPECT_EQ(exporter_->stop(), 0) << exporter_->log();
}

TEST_F(LiveDeviceEventsTest, BondSlaveEnslaveAndReleaseKeepTheCount) {
  const std::string bond = network_.prefix() + "bo";
  const CommandResult made = run_command({"ip", "-n", home_, "link", "add", bond, "type", "bond"});
  if (made.exit_code != 0 && made.output.find("Unknown device type") != std::string::npos) {
    GTEST_SKIP() << "this kernel has no bonding driver (modprobe bonding): " << made.output;
  }
  ASSERT_EQ(made.exit_code, 0) << made.output;
  expect_count_continues("start");
  ASSERT_TRUE(ip({"link", "set", port_, "down"}));
  ASSERT_TRUE(ip({"link", "set", port_, "master", bond}));
  ASSERT_TRUE(ip({"link", "set", bond, "up"}));
  ASSERT_TRUE(ip({"link", "set", port_, "up"}));
  expect_count_continues("enslaved to a bond");
  ASSERT_TRUE(ip({"link", "set", port_, "nomaster"}));
  ASSERT_TRUE(ip({"link", "set", port_, "up"}));
  expect_count_continues("released from the bond");
  ASSERT_TRUE(ip({"link", "set", port_, "down"}));  // a port that is up can't be enslaved (6.1)
  ASSERT_TRUE(ip({"link", "set", port_, "master", bond}));
  ASSERT_TRUE(ip({"link", "del", bond}));
  ASSERT_TRUE(ip({"link", "set", port_, "up"}));
  expect_count_continues("the bond deleted under it");
  EXPECT_EQ(exporter_->stop(), 0) << exporter_->log();
}

// The contrast: a real deletion does reset (the device is gone).
TEST_F(LiveDeviceEventsTest, ARealDeletionRemovesTheSeries) {
  expect_count_continues("start");
  network_.delete_link(home_, port_);
  const Series series =
      scrape_until(*exporter_, [&](const Series& s) { return devices_of(s).count(port_) == 0; });
  EXPECT_EQ(devices_of(series).count(port_), 0U);
  EXPECT_GE(sum_where(series, "netif_rx_removed_packets_total", {}), kBurst);
  EXPECT_EQ(exporter_->stop(), 0) << exporter_->log();
}

}  // namespace
}  // namespace netif_rx::test
