// Packets by RX queue and steered packets against the real kernel, through the
// exporter's HTTP endpoint: a multi-queue tap (tun records the queue of the
// descriptor a frame was written to: skb_record_rx_queue) in a namespace of
// the test, where the exporter runs and counts the tap as of the per-CPU
// class; frames written from a process pinned to a CPU, then with RPS
// steering the tap's queue 0 to the other CPU.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "exporter_process.h"
#include "pipeline/cpu_list.h"
#include "probe/alloc_cpu_support.h"
#include "series_query.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

constexpr int kQueues = 2;
constexpr int kFrames = 300;

// An Ethernet frame of an IPv4 UDP datagram from 198.51.100.1:1000 to
// 198.51.100.2:9 (TEST-NET-2) for a MAC that is not the tap's: the stack
// drops it after the tracepoint, and its flow hash is not 0 (RPS needs one).
std::vector<unsigned char> udp_frame() {
  std::vector<unsigned char> frame(14 + 20 + 8 + 18, 0);
  const unsigned char header[] = {
      0x02, 0,    0,   0,  0,   0x01,                         // destination
      0x02, 0,    0,   0,  0,   0x02,                         // source
      0x08, 0x00,                                             // IPv4
      0x45, 0,    0,   46, 0,   0,    0x40, 0, 64, 17, 0, 0,  // 46 bytes, DF, TTL 64, UDP
      198,  51,   100, 1,  198, 51,   100,  2,                // addresses
      0x03, 0xe8, 0,   9,  0,   26,   0,    0};               // ports 1000 -> 9, length 26
  std::memcpy(frame.data(), header, sizeof header);
  unsigned sum = 0;  // the IPv4 header's checksum
  for (int i = 14; i < 34; i += 2) sum += frame[i] << 8 | frame[i + 1];
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  frame[24] = static_cast<unsigned char>(~sum >> 8);
  frame[25] = static_cast<unsigned char>(~sum);
  return frame;
}

// Writes `count` frames to queue `queue` of the multi-queue tap `tap` of
// namespace `netns`, from a child pinned to `cpu` that attaches every queue
// (the n-th descriptor attached is queue n). Returns the frames written.
int write_to_queue(const std::string& netns, const std::string& tap, int queue, unsigned cpu,
                   int count) {
  const std::vector<unsigned char> frame = udp_frame();
  const std::string netns_path = "/run/netns/" + netns;
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return -1;
  const pid_t child = ::fork();
  if (child < 0) return -1;
  if (child == 0) {
    // Syscalls only: the parent has threads.
    ::close(pipe_fds[0]);
    int written = -1;
    const int ns = ::open(netns_path.c_str(), O_RDONLY | O_CLOEXEC);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    std::array<int, kQueues> fds{};
    bool ready =
        ns >= 0 && ::setns(ns, CLONE_NEWNET) == 0 && ::sched_setaffinity(0, sizeof set, &set) == 0;
    for (int i = 0; ready && i < kQueues; ++i) {
      fds[i] = ::open("/dev/net/tun", O_RDWR | O_CLOEXEC);
      ifreq request{};
      std::strncpy(request.ifr_name, tap.c_str(), IFNAMSIZ - 1);
      request.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE;
      ready = fds[i] >= 0 && ::ioctl(fds[i], TUNSETIFF, &request) == 0;
    }
    if (ready) {
      written = 0;
      for (int i = 0; i < count; ++i) {
        if (::write(fds[queue], frame.data(), frame.size()) != static_cast<ssize_t>(frame.size()))
          break;
        ++written;
      }
    }
    if (::write(pipe_fds[1], &written, sizeof written) != sizeof written) ::_exit(2);
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  int written = -1;
  if (::read(pipe_fds[0], &written, sizeof written) != sizeof written) written = -1;
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return written;
}

// /proc/net/softnet_stat's received_rps (the 10th word: RPS interrupts a
// CPU took, each for one or more packets), by CPU.
std::vector<unsigned long long> received_rps() {
  std::ifstream file("/proc/net/softnet_stat");
  std::vector<unsigned long long> out;
  std::string line;
  while (std::getline(file, line)) {
    std::istringstream words(line);
    std::vector<unsigned long long> values;
    std::string word;
    while (words >> word) values.push_back(std::stoull(word, nullptr, 16));
    if (values.size() < 10) continue;
    const std::size_t cpu = values.size() >= 13 ? values[12] : out.size();
    if (out.size() <= cpu) out.resize(cpu + 1);
    out[cpu] = values[9];
  }
  return out;
}

class QueueSteeringTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    network_ = std::make_unique<TestNetwork>("nrq" + std::to_string(::getpid() % 100000));
    netns_ = network_->add_namespace("q");
    tap_ = network_->prefix() + "t";
    network_->run_in(netns_, {"ip", "tuntap", "add", "dev", tap_, "mode", "tap", "multi_queue"});
    network_->run_in(netns_, {"sysctl", "-qw", "net.ipv6.conf." + tap_ + ".disable_ipv6=1"});
    network_->run_in(netns_, {"ip", "link", "set", tap_, "up"});
    // The exporter in the tap's namespace (its own): the tap's queues take
    // the slot path; the tap in the per-CPU class by name.
    exporter_ = std::make_unique<ExporterProcess>(
        "poll_interval: 100ms\nper_cpu:\n  include: ['" + network_->prefix() + ".*']\n",
        std::vector<std::string>{}, netns_);
  }

  static void TearDownTestSuite() {
    exporter_.reset();
    network_.reset();
  }

  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
    ASSERT_TRUE(exporter_->wait_ready()) << "the exporter did not become ready; its log says why:\n"
                                         << exporter_->log();
    cpus_ = present_cpus();
    if (cpus_.size() < 2) GTEST_SKIP() << "needs two CPUs: one writes, RPS steers to the other";
  }

  static void set_rps(unsigned cpu_mask) {
    char mask[16];
    std::snprintf(mask, sizeof mask, "%x", cpu_mask);
    network_->run_in(netns_, {"sh", "-c",
                              std::string("echo ") + mask + " > /sys/class/net/" + tap_ +
                                  "/queues/rx-0/rps_cpus"});
  }

  static double queue_packets(const Series& series, int queue, unsigned cpu) {
    return sum_where(
        series, "netif_rx_queue_packets_total",
        {{"device", tap_}, {"queue", std::to_string(queue)}, {"cpu", std::to_string(cpu)}});
  }
  static double steered(const Series& series, unsigned cpu, unsigned from_cpu) {
    return sum_where(
        series, "netif_rx_steered_packets_total",
        {{"device", tap_}, {"cpu", std::to_string(cpu)}, {"from_cpu", std::to_string(from_cpu)}});
  }
  static double packets(const Series& series) {
    return sum_where(series, "netif_rx_packets_total", {{"device", tap_}});
  }

  // Scrapes until the tap's packets reach `expected` or 5 s pass, then
  // waits two more polls and scrapes again.
  static Series scrape_when_packets(double expected) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (packets(exporter_->scrape()) < expected && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return exporter_->scrape();
  }

  static inline std::unique_ptr<TestNetwork> network_;
  static inline std::unique_ptr<ExporterProcess> exporter_;
  static inline std::string netns_;
  static inline std::string tap_;
  std::vector<unsigned> cpus_;
};

TEST_F(QueueSteeringTest, CountsEachQueueOnTheCpuThatWroteIt) {
  set_rps(0);
  const unsigned first = cpus_[0];
  const unsigned second = cpus_[1];
  const Series before = exporter_->scrape();
  const long long rx_before = link_counter(netns_, tap_, "rx_packets");
  ASSERT_GE(rx_before, 0);

  ASSERT_EQ(write_to_queue(netns_, tap_, 0, first, kFrames), kFrames);
  ASSERT_EQ(write_to_queue(netns_, tap_, 1, second, 2 * kFrames), 2 * kFrames);
  const double received = static_cast<double>(link_counter(netns_, tap_, "rx_packets") - rx_before);
  const Series after = scrape_when_packets(packets(before) + received);

  const auto delta = [&](int queue, unsigned cpu) {
    return queue_packets(after, queue, cpu) - queue_packets(before, queue, cpu);
  };
  std::printf("%s: rx_packets +%.0f; queue 0 on CPU %u +%.0f, queue 1 on CPU %u +%.0f\n",
              tap_.c_str(), received, first, delta(0, first), second, delta(1, second));
  EXPECT_EQ(received, 3 * kFrames);
  EXPECT_EQ(delta(0, first), kFrames);
  EXPECT_EQ(delta(1, second), 2 * kFrames);
  EXPECT_EQ(delta(0, second), 0);
  EXPECT_EQ(delta(1, first), 0);
  // Every packet of the tap recorded a queue: the queues sum to its packets.
  EXPECT_EQ(sum_where(after, "netif_rx_queue_packets_total", {{"device", tap_}}), packets(after));
  EXPECT_EQ(packets(after) - packets(before), received);
  EXPECT_EQ(sum_where(after, "netif_rx_queue_untracked_packets_total", {}), 0);
}

TEST_F(QueueSteeringTest, CountsPacketsRpsSteeredToTheOtherCpu) {
  const unsigned writer = cpus_[0];
  const unsigned target = cpus_[1];
  std::string error;
  const auto alloc_cpu = skb_has_alloc_cpu("/sys/kernel/btf/vmlinux", error);
  ASSERT_TRUE(alloc_cpu) << error;

  // RPS on: queue 0's packets are processed on the target CPU.
  set_rps(1U << target);
  const Series before = exporter_->scrape();
  const auto rps_before = received_rps();
  ASSERT_EQ(write_to_queue(netns_, tap_, 0, writer, kFrames), kFrames);
  Series after = scrape_when_packets(packets(before) + kFrames);
  const auto rps_after = received_rps();
  set_rps(0);
  ASSERT_GT(rps_after.size(), target);
  const double interrupts = static_cast<double>(rps_after[target] - rps_before[target]);
  std::printf(
      "RPS on: queue 0 on CPU %u +%.0f, steered %u -> %u +%.0f, received_rps of CPU %u "
      "+%.0f\n",
      target, queue_packets(after, 0, target) - queue_packets(before, 0, target), writer, target,
      steered(after, target, writer) - steered(before, target, writer), target, interrupts);
  EXPECT_EQ(queue_packets(after, 0, target) - queue_packets(before, 0, target), kFrames);
  EXPECT_EQ(queue_packets(after, 0, writer) - queue_packets(before, 0, writer), 0);
  // The kernel's own count: each RPS interrupt of the target CPU takes one or
  // more steered packets.
  EXPECT_GE(interrupts, 1);
  EXPECT_LE(interrupts, kFrames);
  if (!*alloc_cpu) {
    EXPECT_EQ(count_where(after, "netif_rx_steered_packets_total", {}), 0) << "no alloc_cpu";
    return;
  }
  EXPECT_EQ(steered(after, target, writer) - steered(before, target, writer), kFrames);
  EXPECT_EQ(sum_where(after, "netif_rx_steered_packets_total",
                      {{"device", tap_}, {"cpu", std::to_string(writer)}}),
            sum_where(before, "netif_rx_steered_packets_total",
                      {{"device", tap_}, {"cpu", std::to_string(writer)}}));

  // RPS off: processed where they were built, nothing steered.
  const Series off_before = scrape_when_packets(packets(after));
  ASSERT_EQ(write_to_queue(netns_, tap_, 0, writer, kFrames), kFrames);
  const Series off_after = scrape_when_packets(packets(off_before) + kFrames);
  EXPECT_EQ(queue_packets(off_after, 0, writer) - queue_packets(off_before, 0, writer), kFrames);
  EXPECT_EQ(sum_where(off_after, "netif_rx_steered_packets_total", {{"device", tap_}}),
            sum_where(off_before, "netif_rx_steered_packets_total", {{"device", tap_}}));
}

}  // namespace
}  // namespace netif_rx::test
