// Drops on the receive path against the real kernel, through the exporter's
// HTTP endpoint: a UDP flood to a closed port and to a socket with a tiny
// receive buffer against the namespace's own /proc/net/snmp, backlog drops
// against /proc/net/softnet_stat, and the reason names against the
// kernel's tracepoint format.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "command.h"
#include "drops/drop_reasons.h"
#include "exporter_process.h"
#include "netns_thread.h"
#include "pipeline/cpu_list.h"
#include "series_query.h"
#include "test_network.h"
#include "util/unique_fd.h"

namespace netif_rx::test {
namespace {

constexpr int kPayloadBytes = 50;

// A counter of the `Udp:` lines of /proc/net/snmp, read in `netns`.
long long udp_counter(const std::string& netns, const std::string& name) {
  const CommandResult result = run_command({"ip", "netns", "exec", netns, "cat", "/proc/net/snmp"});
  if (result.exit_code != 0) return -1;
  std::istringstream lines(result.output);
  std::string header;
  std::string values;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("Udp: ", 0) != 0) continue;
    if (header.empty()) {
      header = line;
    } else {
      values = line;
      break;
    }
  }
  std::istringstream names(header);
  std::istringstream numbers(values);
  std::string field;
  std::string number;
  while (names >> field && numbers >> number) {
    if (field == name) return std::stoll(number);
  }
  return -1;
}

// The dropped column (the second) of /proc/net/softnet_stat, by CPU: the
// 13th column where the kernel has it, else the line's position.
std::map<unsigned, unsigned long long> softnet_dropped() {
  std::ifstream file("/proc/net/softnet_stat");
  std::map<unsigned, unsigned long long> dropped;
  unsigned position = 0;
  for (std::string line; std::getline(file, line); ++position) {
    std::istringstream fields(line);
    std::vector<std::string> words;
    for (std::string word; fields >> word;) words.push_back(word);
    if (words.size() < 2) continue;
    const unsigned cpu =
        words.size() >= 13 ? static_cast<unsigned>(std::stoul(words[12], nullptr, 16)) : position;
    dropped[cpu] = std::stoull(words[1], nullptr, 16);
  }
  return dropped;
}

// net.core.netdev_max_backlog (global: every namespace shares it) set for
// the object's lifetime and put back when it goes, also when a test fails.
class BacklogLimit {
 public:
  explicit BacklogLimit(int limit) {
    std::ifstream in(kPath);
    in >> old_;
    ok_ = old_ > 0 && write(limit);
  }
  ~BacklogLimit() {
    if (old_ > 0) write(old_);
  }
  BacklogLimit(const BacklogLimit&) = delete;
  BacklogLimit& operator=(const BacklogLimit&) = delete;
  bool ok() const { return ok_; }

 private:
  static constexpr const char* kPath = "/proc/sys/net/core/netdev_max_backlog";
  static bool write(int value) {
    std::ofstream out(kPath);
    out << value << '\n';
    out.flush();
    return static_cast<bool>(out);
  }
  int old_ = 0;
  bool ok_ = false;
};

// The pairs {value, "NAME"} of the print table of skb:kfree_skb's reason
// (__print_symbolic in the format file).
std::map<std::uint32_t, std::string> tracefs_reasons(const std::string& format) {
  std::map<std::uint32_t, std::string> reasons;
  const std::size_t table = format.find("__print_symbolic(REC->reason");
  if (table == std::string::npos) return reasons;
  std::size_t at = table;
  for (;;) {
    const std::size_t open = format.find("{ ", at);
    if (open == std::string::npos) break;
    const std::size_t comma = format.find(", \"", open);
    const std::size_t close = format.find("\" }", open);
    if (comma == std::string::npos || close == std::string::npos || comma > close) break;
    reasons[static_cast<std::uint32_t>(std::stoul(format.substr(open + 2, comma - open - 2)))] =
        format.substr(comma + 3, close - comma - 3);
    at = close + 3;
  }
  return reasons;
}

class DropsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    network_ = std::make_unique<TestNetwork>("nrd" + std::to_string(::getpid() % 100000));
    ns_a_ = network_->add_namespace("a");
    ns_b_ = network_->add_namespace("b");
    pair_ = network_->add_veth_pair("a0", ns_a_, "b0", ns_b_, 0);
    exporter_ = std::make_unique<ExporterProcess>("poll_interval: 100ms\nnamespaces: all\n");
  }

  static void TearDownTestSuite() {
    exporter_.reset();
    network_.reset();
  }

  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
    ASSERT_TRUE(exporter_->wait_ready()) << "the exporter did not become ready; its log says why:\n"
                                         << exporter_->log();
  }

  static double drops(const Series& series, const std::string& reason) {
    return sum_where(series, "netif_rx_drops_total",
                     {{"device", pair_.b.name}, {"reason", reason}});
  }

  // Scrapes until the exporter's drops of `reason` on the receiving end grew
  // by `expected` or 5 s pass, then two more polls; returns the growth.
  static double grown_by(const std::string& reason, double before, double expected) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (drops(exporter_->scrape(), reason) - before < expected &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return drops(exporter_->scrape(), reason) - before;
  }

  static inline std::unique_ptr<TestNetwork> network_;
  static inline std::unique_ptr<ExporterProcess> exporter_;
  static inline std::string ns_a_;
  static inline std::string ns_b_;
  static inline VethPair pair_;
};

TEST_F(DropsTest, AClosedPortsDropsEqualUdpNoPorts) {
  const double before = drops(exporter_->scrape(), "NO_SOCKET");
  const long long no_ports_before = udp_counter(ns_b_, "NoPorts");
  ASSERT_GE(no_ports_before, 0);

  constexpr int kCount = 5000;
  ASSERT_EQ(send_udp(ns_a_, 0, pair_.b.address, kCount, kPayloadBytes), kCount);
  const long long no_ports = udp_counter(ns_b_, "NoPorts") - no_ports_before;
  const double counted = grown_by("NO_SOCKET", before, static_cast<double>(no_ports));

  std::printf("closed port: sent %d, NoPorts delta %lld, exporter NO_SOCKET %.0f\n", kCount,
              no_ports, counted);
  EXPECT_EQ(no_ports, kCount);
  EXPECT_EQ(counted, static_cast<double>(no_ports));
  // The sender's end dropped nothing of it.
  EXPECT_EQ(sum_where(exporter_->scrape(), "netif_rx_drops_total", {{"device", pair_.a.name}}),
            0.0);
}

TEST_F(DropsTest, ATinyReceiveBuffersDropsEqualUdpRcvbufErrors) {
  // A socket on port 9 in B with the smallest receive buffer, never read.
  UniqueFd receiver;
  run_in_netns(ns_b_, std::nullopt, [&] {
    UniqueFd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    const int size = 1;
    sockaddr_in at{};
    at.sin_family = AF_INET;
    at.sin_port = htons(9);
    ::inet_pton(AF_INET, pair_.b.address.c_str(), &at.sin_addr);
    if (::setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUF, &size, sizeof size) != 0 ||
        ::bind(fd.get(), reinterpret_cast<sockaddr*>(&at), sizeof at) != 0)
      return;
    receiver = std::move(fd);
  });
  ASSERT_TRUE(receiver.valid()) << "no socket with a tiny receive buffer in " << ns_b_;

  const double before = drops(exporter_->scrape(), "SOCKET_RCVBUFF");
  const long long errors_before = udp_counter(ns_b_, "RcvbufErrors");
  constexpr int kCount = 3000;
  ASSERT_EQ(send_udp(ns_a_, 0, pair_.b.address, kCount, kPayloadBytes), kCount);
  const long long errors = udp_counter(ns_b_, "RcvbufErrors") - errors_before;
  const double counted = grown_by("SOCKET_RCVBUFF", before, static_cast<double>(errors));

  std::printf(
      "tiny receive buffer: sent %d, RcvbufErrors delta %lld, exporter SOCKET_RCVBUFF %.0f\n",
      kCount, errors, counted);
  EXPECT_GT(errors, kCount / 2);
  EXPECT_EQ(counted, static_cast<double>(errors));
}

TEST_F(DropsTest, BacklogDropsPerCpuEqualSoftnetStat) {
  // The sender's end segments each datagram itself: all its segments reach
  // the peer's backlog within one transmit, past a backlog of 1.
  network_->set_features(ns_a_, pair_.a.name, {"tx-udp-segmentation", "off"});
  const std::vector<unsigned> cpus = present_cpus();
  const unsigned cpu = cpus.back();
  const Series before = exporter_->scrape();
  const auto softnet_before = softnet_dropped();

  int sent = 0;
  {
    // As short as it can be: other tests run beside this one.
    BacklogLimit limit(1);
    ASSERT_TRUE(limit.ok()) << "cannot set net.core.netdev_max_backlog";
    sent = send_udp_gso_bursts(ns_a_, cpu, pair_.b.address, 20, 64, kPayloadBytes);
  }
  ASSERT_EQ(sent, 20);
  const auto softnet_after = softnet_dropped();

  // Expected growth by CPU.
  std::map<unsigned, double> expected;
  double total = 0;
  for (const auto& [at, dropped] : softnet_after) {
    const auto earlier = softnet_before.find(at);
    // The column is 32 bits: the difference modulo 2^32.
    const auto delta = static_cast<std::uint32_t>(
        dropped - (earlier == softnet_before.end() ? 0 : earlier->second));
    expected[at] = delta;
    total += delta;
  }
  ASSERT_GT(expected[cpu], 0) << "no backlog drop was forced on CPU " << cpu;

  const auto backlog = [](const Series& series, unsigned at) {
    return sum_where(series, "netif_rx_backlog_drops_total", {{"cpu", std::to_string(at)}});
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  Series after = exporter_->scrape();
  while (backlog(after, cpu) - backlog(before, cpu) < expected[cpu] &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    after = exporter_->scrape();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  after = exporter_->scrape();

  for (const auto& [at, delta] : expected) {
    std::printf("CPU %u: softnet_stat dropped delta %.0f, exporter backlog drops %.0f\n", at, delta,
                backlog(after, at) - backlog(before, at));
    EXPECT_EQ(backlog(after, at) - backlog(before, at), delta) << "CPU " << at;
  }
  const double device = drops(after, "CPU_BACKLOG") - drops(before, "CPU_BACKLOG");
  std::printf("device %s: CPU_BACKLOG %.0f of %.0f backlog drops on every CPU\n",
              pair_.b.name.c_str(), device, total);
  EXPECT_GT(device, 0);
  EXPECT_LE(device, total);
}

// A device of the exporter's namespace that dropped, then was deleted: its
// drop series leave with it, and so do its entries in the drop counter's maps
// (else devices of pods long gone would fill them).
TEST_F(DropsTest, AGoneDevicesDropsLeaveWithIt) {
  const VethPair host_pair = network_->add_veth_pair("hd", "", "ad", ns_a_, 3);
  const auto host_drops = [&host_pair](const Series& series) {
    return sum_where(series, "netif_rx_drops_total", {{"device", host_pair.a.name}});
  };
  constexpr int kCount = 200;
  ASSERT_EQ(send_udp(ns_a_, 0, host_pair.a.address, kCount, kPayloadBytes), kCount);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (host_drops(exporter_->scrape()) < kCount && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(host_drops(exporter_->scrape()), kCount) << exporter_->log();
  const Labels drop_map{{"map", "drop_counters"}};
  const double entries_before =
      sum_where(exporter_->scrape(), "netif_rx_bpf_map_entries", drop_map);

  network_->delete_link("", host_pair.a.name);
  const auto gone_by = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  Series after = exporter_->scrape();
  while (count_where(after, "netif_rx_drops_total", {{"device", host_pair.a.name}}) > 0 &&
         std::chrono::steady_clock::now() < gone_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    after = exporter_->scrape();
  }
  std::printf("gone device: %d drops counted, its drop series %s after its deletion\n", kCount,
              count_where(after, "netif_rx_drops_total", {{"device", host_pair.a.name}}) > 0
                  ? "still there"
                  : "gone");
  EXPECT_FALSE(count_where(after, "netif_rx_drops_total", {{"device", host_pair.a.name}}) > 0)
      << exporter_->log();
  // Its entry left the map (counted at the poll after the deletion).
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double entries_after = sum_where(exporter_->scrape(), "netif_rx_bpf_map_entries", drop_map);
  std::printf("drop_counters entries: %.0f before the deletion, %.0f after\n", entries_before,
              entries_after);
  EXPECT_GE(entries_before, 1);
  EXPECT_LT(entries_after, entries_before);
}

TEST(DropReasonNames, EqualTheKfreeSkbTracepointsPrintTable) {
  const CommandResult format = run_command(
      {"unshare", "--mount", "--propagation", "private", "sh", "-c",
       "mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing; "
       "cat /sys/kernel/tracing/events/skb/kfree_skb/format"});
  ASSERT_EQ(format.exit_code, 0) << format.output;
  auto printed = tracefs_reasons(format.output);
  ASSERT_FALSE(printed.empty()) << "no reason table in:\n" << format.output;

  std::string error;
  const auto enumerators = read_drop_reason_enum("/sys/kernel/btf/vmlinux", error);
  ASSERT_TRUE(enumerators) << error;
  const DropReasonTable table = drop_reason_table(*enumerators);

  std::size_t named = 0;
  for (std::size_t value = 0; value < table.names.size(); ++value) {
    if (table.names[value].empty()) continue;
    ++named;
    const auto found = printed.find(static_cast<std::uint32_t>(value));
    ASSERT_NE(found, printed.end()) << table.names[value] << " (" << value << ") is not printed";
    EXPECT_EQ(found->second, table.names[value]) << "value " << value;
  }
  // MAX, the enum's end, is printed too: not a reason.
  for (auto it = printed.begin(); it != printed.end();) {
    it = it->second == "MAX" ? printed.erase(it) : std::next(it);
  }
  for (const auto& [value, name] : printed) {
    if (value >= table.names.size()) continue;  // a subsystem's reasons
    EXPECT_EQ(table.names[value], name) << "value " << value;
  }
  std::printf("%zu reasons from BTF equal the tracepoint's table (%zu entries)\n", named,
              printed.size());
  EXPECT_EQ(named, printed.size());
}

}  // namespace
}  // namespace netif_rx::test
