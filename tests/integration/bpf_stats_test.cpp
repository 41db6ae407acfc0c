// The probe's own cost against the real kernel, in each bpf_stats.mode, and
// the exporter's least privilege: the HTTP process holds no capability (but
// the polling thread CAP_BPF where the kernel requires it), the
// sampling helper holds CAP_SYS_ADMIN alone and dies with the exporter.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "app/check_report.h"
#include "exporter_process.h"
#include "sys/privileges.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

constexpr std::uint64_t kSysAdmin = 1ULL << 21;
constexpr std::uint64_t kBpf = 1ULL << 39;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

double value(const Series& series, const std::string& key) {
  const auto found = series.find(key);
  return found == series.end() ? -1.0 : found->second;
}

const std::string kRunCount = "netif_rx_bpf_run_count_total{program=\"netif_rx_btf\"}";
const std::string kRunTime = "netif_rx_bpf_run_time_seconds_total{program=\"netif_rx_btf\"}";
const std::string kEnabled = "netif_rx_bpf_stats_enabled";

bool sysctl_stats_on() {
  return read_text("/proc/sys/kernel/bpf_stats_enabled").rfind('1', 0) == 0;
}

// The capabilities the polling thread must keep on this kernel, told
// independently of the exporter: CAP_BPF before 5.19 while
// kernel.unprivileged_bpf_disabled is set (the kernel refuses bpf(2) to a
// thread without it), else none.
std::uint64_t expected_poll_thread_capabilities() {
  utsname name{};
  ::uname(&name);
  if (kernel_release_at_least(name.release, 5, 19)) return 0;
  return read_text("/proc/sys/kernel/unprivileged_bpf_disabled").rfind('0', 0) == 0 ? 0 : kBpf;
}

// Every thread of `pid` has no_new_privs and holds no capability, but the
// polling thread (named netif_rx_poll), which holds exactly
// expected_poll_thread_capabilities().
void expect_least_privilege(pid_t pid) {
  const std::uint64_t poll_thread_keeps = expected_poll_thread_capabilities();
  int threads = 0;
  int poll_threads = 0;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    const std::string status = read_text(task.path().string() + "/status");
    const auto sets = parse_capability_sets(status);
    ASSERT_TRUE(sets) << status;
    const bool poll_thread = status.rfind("Name:\tnetif_rx_poll\n", 0) == 0;
    poll_threads += poll_thread ? 1 : 0;
    const std::uint64_t allowed = poll_thread ? poll_thread_keeps : 0;
    EXPECT_EQ(sets->inheritable, 0U) << task.path();
    EXPECT_EQ(sets->permitted, allowed) << task.path();
    EXPECT_EQ(sets->effective, allowed) << task.path();
    EXPECT_EQ(sets->ambient, 0U) << task.path();
    EXPECT_EQ(sets->bounding, allowed) << task.path();
    EXPECT_NE(status.find("NoNewPrivs:\t1"), std::string::npos) << task.path();
    ++threads;
  }
  EXPECT_GT(threads, 1);  // the HTTP and poller threads were checked too
  EXPECT_EQ(poll_threads, 1) << "exactly one thread named netif_rx_poll";
}

// Children of `parent`, from /proc/*/stat.
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = read_text(entry.path().string() + "/stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent) out.push_back(std::stoi(name));
  }
  return out;
}

bool exited(pid_t pid) {
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return true;
  const auto close = stat.rfind(')');
  return close != std::string::npos && stat.size() > close + 2 && stat[close + 2] == 'Z';
}

bool wait_exited(pid_t pid) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (!exited(pid) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return exited(pid);
}

class BpfStatsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    network_ = std::make_unique<TestNetwork>("nrs" + std::to_string(::getpid() % 100000));
    ns_ = network_->add_namespace("a");
    pair_ = network_->add_veth_pair("h0", "", "a0", ns_, 3);
  }
  static void TearDownTestSuite() { network_.reset(); }

  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
  }

  static std::unique_ptr<ExporterProcess> start(const std::string& mode,
                                                const std::string& timing = "") {
    auto exporter = std::make_unique<ExporterProcess>(
        "poll_interval: 100ms\nbpf_stats: {mode: " + mode + timing + "}\n");
    EXPECT_TRUE(exporter->wait_ready()) << "the exporter did not become ready; its log says why:\n"
                                        << exporter->log();
    return exporter;
  }

  static Series scrape_after_poll(ExporterProcess& exporter) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return exporter.scrape();
  }

  static inline std::unique_ptr<TestNetwork> network_;
  static inline std::string ns_;
  static inline VethPair pair_;
};

TEST_F(BpfStatsTest, AlwaysCountsEveryRunOfKnownTraffic) {
  auto exporter = start("always");
  ASSERT_FALSE(HasFailure());
  const Series before = scrape_after_poll(*exporter);
  ASSERT_GE(value(before, kRunCount), 0) << exporter->log();
  EXPECT_EQ(value(before, kEnabled), 1);

  constexpr int kPackets = 1000;
  ASSERT_EQ(send_udp(ns_, 0, pair_.a.address, kPackets, 32), kPackets);
  const Series after = scrape_after_poll(*exporter);
  EXPECT_GE(value(after, kRunCount) - value(before, kRunCount), kPackets);
  EXPECT_GT(value(after, kRunTime) - value(before, kRunTime), 0);
  EXPECT_EQ(value(after, "netif_rx_bpf_recursion_misses_total{program=\"netif_rx_btf\"}"), 0);
  EXPECT_EQ(value(after, "netif_rx_bpf_map_max_entries{map=\"device_counters\"}"), 4096);
  // The host end is in the exporter's namespace: counted in the array, whose
  // entries are always its slots; the hash holds what is beyond it (maybe none).
  EXPECT_GE(value(after, "netif_rx_bpf_map_entries{map=\"device_counters\"}"), 0);
  EXPECT_EQ(value(after, "netif_rx_bpf_map_max_entries{map=\"host_counters\"}"), 4096);
  EXPECT_EQ(value(after, "netif_rx_bpf_map_entries{map=\"host_counters\"}"), 4096);
  EXPECT_EQ(value(after, "netif_rx_exporter_capabilities_retained{capability=\"CAP_BPF\"}"),
            expected_poll_thread_capabilities() == kBpf ? 1 : 0);
  expect_least_privilege(exporter->pid());
  EXPECT_TRUE(children_of(exporter->pid()).empty()) << "no helper in mode always";
  EXPECT_EQ(exporter->stop(), 0);
}

TEST_F(BpfStatsTest, OffNeverEnablesStatistics) {
  auto exporter = start("off");
  ASSERT_FALSE(HasFailure());
  ASSERT_EQ(send_udp(ns_, 0, pair_.a.address, 100, 32), 100);
  const Series series = scrape_after_poll(*exporter);
  // The exporter never touches the global sysctl. Where something else set
  // kernel.bpf_stats_enabled=1, the exporter reports that truthfully.
  EXPECT_EQ(value(series, kEnabled), sysctl_stats_on() ? 1 : 0) << exporter->log();
  EXPECT_GE(value(series, kRunCount), 0);
  expect_least_privilege(exporter->pid());
  EXPECT_TRUE(children_of(exporter->pid()).empty()) << "no helper in mode off";
  EXPECT_EQ(exporter->stop(), 0);
}

TEST_F(BpfStatsTest, SampledDelegatesToAHelperThatHoldsOnlySysAdmin) {
  auto exporter = start("sampled", ", window: 300ms, period: 1s");
  ASSERT_FALSE(HasFailure());
  expect_least_privilege(exporter->pid());

  const auto children = children_of(exporter->pid());
  ASSERT_EQ(children.size(), 1U) << "expected exactly the sampling helper";
  const pid_t helper = children[0];
  const auto sets = parse_capability_sets(read_text("/proc/" + std::to_string(helper) + "/status"));
  ASSERT_TRUE(sets);
  EXPECT_EQ(sets->permitted, kSysAdmin);
  EXPECT_EQ(sets->effective, kSysAdmin);
  EXPECT_EQ(sets->bounding, kSysAdmin);
  EXPECT_EQ(sets->inheritable, 0U);
  EXPECT_EQ(sets->ambient, 0U);

  // The gauge follows the windows: seen both open and closed within 3 s,
  // and the counters move during a window.
  bool seen_on = false;
  bool seen_off = false;
  double runs = -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (std::chrono::steady_clock::now() < deadline) {
    send_udp(ns_, 0, pair_.a.address, 50, 32);
    const Series series = exporter->scrape();
    (value(series, kEnabled) == 1 ? seen_on : seen_off) = true;
    runs = value(series, kRunCount);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(seen_on);
  if (!sysctl_stats_on()) {
    EXPECT_TRUE(seen_off);
  }
  EXPECT_GT(runs, 0);

  EXPECT_EQ(exporter->stop(), 0);
  EXPECT_TRUE(wait_exited(helper)) << "the helper outlived the exporter";
}

TEST_F(BpfStatsTest, SampledHelperDiesWhenTheExporterIsKilled) {
  auto exporter = start("sampled");
  ASSERT_FALSE(HasFailure());
  const auto children = children_of(exporter->pid());
  ASSERT_EQ(children.size(), 1U);
  ASSERT_EQ(::kill(exporter->pid(), SIGKILL), 0);
  EXPECT_TRUE(wait_exited(children[0])) << "the helper outlived a killed exporter";
  exporter->stop();
}

}  // namespace
}  // namespace netif_rx::test
