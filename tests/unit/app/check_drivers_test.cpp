// `check`'s NIC lines: the driver table, the sysfs scan on a made-up tree,
// and the lines.
#include "app/check_drivers.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "app/driver_rx_queue.h"
#include "app/nic_sysfs.h"

namespace netif_rx {
namespace {

namespace fs = std::filesystem;

TEST(CheckDriverTable, KnownDriversAndTheRest) {
  for (const char* driver :
       {"virtio_net", "mlx5_core", "mlx4_core", "mlx4_en", "ixgbe", "i40e", "iavf", "ice", "igb",
        "igc", "ena", "gve", "bnxt_en", "tun", "hv_netvsc", "vmxnet3", "nfp", "qede", "sfc"}) {
    EXPECT_EQ(driver_records_rx_queue(driver), RxQueueRecording::yes) << driver;
  }
  for (const char* driver : {"veth", "lo", "loopback", "bridge", "bonding", "ixgbevf"}) {
    EXPECT_EQ(driver_records_rx_queue(driver), RxQueueRecording::no) << driver;
  }
  for (const char* driver : {"", "e1000e", "r8169", "virtio", "mlx5", "IXGBE"}) {
    EXPECT_EQ(driver_records_rx_queue(driver), RxQueueRecording::unknown) << driver;
  }
}

// A /sys/class/net look-alike in a temporary directory, removed at the end.
class FakeClassNet {
 public:
  FakeClassNet()
      : root_(fs::temp_directory_path() / ("netif_rx_class_net_" + std::to_string(::getpid()))) {
    fs::remove_all(root_);
    fs::create_directories(root_ / "bus");
  }
  ~FakeClassNet() { fs::remove_all(root_); }
  FakeClassNet(const FakeClassNet&) = delete;
  FakeClassNet& operator=(const FakeClassNet&) = delete;

  // A device; with a driver, a parent device bound to it; `queues` rx-N.
  void add(const std::string& name, const std::string* driver, bool parent, int queues) {
    const fs::path device = root_ / "net" / name;
    fs::create_directories(device / "queues");
    for (int i = 0; i < queues; ++i) {
      fs::create_directory(device / "queues" / ("rx-" + std::to_string(i)));
      fs::create_directory(device / "queues" / ("tx-" + std::to_string(i)));
    }
    if (!parent) return;
    const fs::path parent_dir = root_ / "bus" / ("parent-" + std::to_string(next_++));
    fs::create_directories(parent_dir);
    fs::create_directory_symlink(parent_dir, device / "device");
    if (driver != nullptr) {
      fs::create_directories(root_ / "drivers" / *driver);
      fs::create_directory_symlink(root_ / "drivers" / *driver, parent_dir / "driver");
    }
  }

  std::string class_net() const { return (root_ / "net").string(); }

 private:
  fs::path root_;
  int next_ = 0;
};

TEST(CheckNicScan, ReadsParentDriverAndQueues) {
  FakeClassNet sys;
  const std::string virtio = "virtio_net";
  const std::string veth = "veth";
  sys.add("eth0", &virtio, true, 4);
  sys.add("veth1", &veth, false, 1);  // no parent device: not a NIC
  sys.add("lo", nullptr, false, 1);
  sys.add("eth1", nullptr, true, 2);  // a parent without a bound driver
  const NicScan scan = scan_nics(sys.class_net(), 64);
  EXPECT_EQ(scan.error, "");
  ASSERT_EQ(scan.nics.size(), 2U);
  EXPECT_EQ(scan.nics[0].name, "eth0");
  EXPECT_EQ(scan.nics[0].driver, "virtio_net");
  EXPECT_EQ(scan.nics[0].rx_queues, 4U);
  EXPECT_EQ(scan.nics[1].name, "eth1");
  EXPECT_EQ(scan.nics[1].driver, "");
  EXPECT_EQ(scan.nics[1].rx_queues, 2U);
  EXPECT_EQ(scan.left_out, 0U);
}

TEST(CheckNicScan, BoundedAndSaysWhatItLeftOut) {
  FakeClassNet sys;
  const std::string ixgbe = "ixgbe";
  for (int i = 0; i < 5; ++i) sys.add("eth" + std::to_string(i), &ixgbe, true, 1);
  const NicScan scan = scan_nics(sys.class_net(), 3);
  EXPECT_EQ(scan.nics.size(), 3U);
  EXPECT_EQ(scan.left_out, 2U);
}

TEST(CheckNicScan, AMissingDirectoryIsAnError) {
  const NicScan scan = scan_nics("/nonexistent/class/net", 64);
  EXPECT_TRUE(scan.nics.empty());
  EXPECT_EQ(scan.error, "/nonexistent/class/net: No such file or directory");
}

TEST(CheckDriverLines, OneLinePerNicInCheckStyle) {
  NicScan scan;
  scan.nics = {
      {"eth0", "mlx5_core", 8}, {"eth1", "ixgbevf", 1}, {"eth2", "e1000e", 1}, {"eth3", "", 0}};
  scan.left_out = 2;
  const std::vector<CheckResult> lines = check_driver_lines(scan);
  ASSERT_EQ(lines.size(), 5U);
  EXPECT_TRUE(lines[0].ok);
  EXPECT_FALSE(lines[0].blocking);
  EXPECT_EQ(lines[0].what,
            "eth0 (driver mlx5_core, 8 RX queues): the driver records the RX queue: packets by "
            "queue and CPU in netif_rx_queue_packets_total");
  EXPECT_FALSE(lines[1].ok);
  EXPECT_FALSE(lines[1].blocking);
  EXPECT_EQ(lines[1].what,
            "eth1 (driver ixgbevf, 1 RX queue): the driver records no RX queue: no "
            "netif_rx_queue_packets_total series");
  EXPECT_FALSE(lines[1].fix.empty());
  EXPECT_TRUE(lines[2].ok);
  EXPECT_EQ(lines[2].what,
            "eth2 (driver e1000e, 1 RX queue): unknown whether the driver records the RX queue: "
            "queue series appear only if it records one");
  EXPECT_TRUE(lines[3].what.starts_with("eth3 (no driver bound, 0 RX queues): unknown"));
  EXPECT_EQ(lines[4].what, "2 more devices with a parent device, not listed");
  EXPECT_EQ(check_exit_code(lines), 0);  // nothing here blocks running
}

TEST(CheckDriverLines, ControlBytesAreEscaped) {
  NicScan scan;
  scan.nics = {{"e\x1b[2Jth0", "dr\nv", 1}};
  const std::vector<CheckResult> lines = check_driver_lines(scan);
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_TRUE(lines[0].what.starts_with("e\\x1b[2Jth0 (driver dr\\x0av, 1 RX queue)"))
      << lines[0].what;
}

TEST(CheckDriverLines, NoNicOrNoSysfs) {
  const std::vector<CheckResult> none = check_driver_lines({});
  ASSERT_EQ(none.size(), 1U);
  EXPECT_TRUE(none[0].ok);
  EXPECT_NE(none[0].what.find("no device in this namespace has a parent device"),
            std::string::npos);
  NicScan broken;
  broken.error = "/sys/class/net: No such file or directory";
  const std::vector<CheckResult> unreadable = check_driver_lines(broken);
  ASSERT_EQ(unreadable.size(), 1U);
  EXPECT_FALSE(unreadable[0].ok);
  EXPECT_FALSE(unreadable[0].blocking);
}

}  // namespace
}  // namespace netif_rx
