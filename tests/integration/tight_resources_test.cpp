// The exporter where the machine gives little: a pin directory on a
// read-only BPF filesystem, or on a full one, is refused in one line; with 64 file descriptors
// it starts, serves, and outlasts a flood of connections that takes them all.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "exporter_process.h"
#include "private_bpffs.h"
#include "series_query.h"

namespace netif_rx::test {
namespace {

// A BPF filesystem mounted read-only on a directory of the test's own,
// unmounted even on failure.
class ReadOnlyBpffs {
 public:
  ReadOnlyBpffs() {
    char dir_template[] = "/tmp/netif_rx_ro_pins.XXXXXX";
    if (::mkdtemp(dir_template) == nullptr) return;
    dir_ = dir_template;
    mounted_ = ::mount("bpf", dir_.c_str(), "bpf", MS_RDONLY, nullptr) == 0;
  }
  ~ReadOnlyBpffs() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
    if (!dir_.empty()) ::rmdir(dir_.c_str());
  }
  ReadOnlyBpffs(const ReadOnlyBpffs&) = delete;
  ReadOnlyBpffs& operator=(const ReadOnlyBpffs&) = delete;

  bool mounted() const { return mounted_; }
  std::string pin_path() const { return dir_ + "/netif_rx_exporter"; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

TEST(TightResources, APinDirectoryOnAReadOnlyMountIsRefusedInOneLine) {
  ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
  ReadOnlyBpffs bpffs;
  ASSERT_TRUE(bpffs.mounted()) << "mounting a read-only BPF filesystem failed";
  ExporterProcess exporter("poll_interval: 100ms\n", {"--bpf.pin-path=" + bpffs.pin_path()});
  EXPECT_FALSE(exporter.wait_ready());
  const std::string log = exporter.log();
  const std::size_t at = log.find("cannot create the pin directory " + bpffs.pin_path());
  ASSERT_NE(at, std::string::npos) << log;
  const std::string line = log.substr(at, log.find('\n', at) - at);
  std::printf("refused: %s\n", line.c_str());
  EXPECT_NE(line.find("Read-only file system"), std::string::npos) << line;
  EXPECT_NE(line.find("--bpf.pin-path"), std::string::npos) << line;
  EXPECT_NE(exporter.stop(), 0);
}

// A BPF filesystem that cannot hold another pin (the test build's fail
// point gives the pin ENOSPC): the start is refused in one line that says
// what to do, and no pin of the half-made probe is left behind.
TEST(TightResources, AFullBpfFilesystemIsRefusedInOneLine) {
  ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
  PrivateBpffs bpffs;
  ASSERT_TRUE(bpffs.mounted()) << "mounting a BPF filesystem failed";
  ExporterProcess exporter("poll_interval: 100ms\n", {"--bpf.pin-path=" + bpffs.pin_path()}, "", {},
                           "", {"NETIF_RX_TEST_FAIL=pin.no_space"});
  EXPECT_FALSE(exporter.wait_ready());
  const std::string log = exporter.log();
  ASSERT_NE(log.find("test failure at pin.no_space"), std::string::npos)
      << "the exporter under test has no fail points (the sanitizer build has them)\n"
      << log;
  const std::size_t at = log.find("No space left on device");
  ASSERT_NE(at, std::string::npos) << log;
  const std::size_t begin = log.rfind('\n', at) + 1;
  const std::string line = log.substr(begin, log.find('\n', at) - begin);
  std::printf("refused: %s\n", line.c_str());
  EXPECT_NE(line.find("unpin --bpf.pin-path="), std::string::npos) << line;
  EXPECT_NE(line.find("start without --bpf.pin-path"), std::string::npos) << line;
  EXPECT_NE(exporter.stop(), 0);
  // Nothing of the probe's layout stays pinned (the directory gone or empty).
  std::error_code ignored;
  EXPECT_TRUE(!std::filesystem::exists(bpffs.layout_dir(), ignored) ||
              std::filesystem::is_empty(bpffs.layout_dir(), ignored))
      << bpffs.layout_dir();
}

// Connections held open to `port`, at most `count`, closed at the end.
std::vector<int> hold_connections(int port, int count) {
  std::vector<int> held;
  for (int i = 0; i < count; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) break;
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<std::uint16_t>(port));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
      ::close(fd);
      break;
    }
    held.push_back(fd);
  }
  return held;
}

TEST(TightResources, SixtyFourFileDescriptorsStartServeAndOutlastAConnectionFlood) {
  ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
  ExporterProcess exporter("poll_interval: 100ms\n", {}, "", {"prlimit", "--nofile=64:64", "--"});
  ASSERT_TRUE(exporter.wait_ready()) << exporter.log();
  const double first_poll =
      sum_where(exporter.scrape(), "netif_rx_exporter_last_poll_timestamp_seconds", {});
  ASSERT_GT(first_poll, 0) << exporter.log();

  // More connections than it has descriptors, held while it polls.
  std::vector<int> held = hold_connections(exporter.port(), 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const std::size_t flood = held.size();
  for (const int fd : held) ::close(fd);

  // Serving again once they are gone, and it polled all along.
  Series after;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (after.empty() && std::chrono::steady_clock::now() < deadline) {
    after = exporter.scrape();
    if (after.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::printf("64 descriptors: %zu connections held for 1.5 s, then %s\n", flood,
              after.empty() ? "no scrape within 10 s" : "scrapes served");
  ASSERT_FALSE(after.empty()) << exporter.log();
  EXPECT_GT(sum_where(after, "netif_rx_exporter_last_poll_timestamp_seconds", {}),
            first_poll + 1.0);
  EXPECT_EQ(exporter.stop(), 0) << exporter.log();
}

}  // namespace
}  // namespace netif_rx::test
