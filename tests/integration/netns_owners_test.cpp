// Who owns a namespace, end to end against real kernel objects, without a
// kubelet: namespaces: all with the attribution reading
// - a named namespace (`ip netns add`): kind named;
// - a fake containerd sandbox bundle whose config.json names the real path
//   of another `ip netns` namespace: kind pod, from the bundle's annotations;
// - a process in a namespace of its own (`unshare --net`) moved into a
//   kubelet-shaped cgroup (systemd driver) under a cgroup v2 subtree the test
//   makes, named by a fake /var/log/pods folder: kind pod, from the process
//   (whose ns/net the attribution's thread reads with CAP_SYS_PTRACE, the one
//   capability it keeps; without it, the namespace is unknown);
// - two processes of two pods (the second in a cgroupfs-driver path) in one
//   namespace: kind ambiguous;
// - the host: kind host.
// Each gets traffic on its loopback, and the info series must name each
// namespace of netif_rx_packets_total exactly once, so that the join
// `netif_rx_packets_total * on (instance, netns) group_left (namespace, pod)
// netif_rx_netns_info` keeps every series. Everything the test makes goes
// when it ends, also when it fails.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "command.h"
#include "exporter_process.h"
#include "lifecycle_support.h"
#include "owners/process_scan.h"
#include "series_query.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

const std::string kWebUid = "0b2c3d4e-1111-4222-8333-944455566677";
const std::string kApiUid = "66666666-2222-3333-4444-555555555555";
const std::string kOtherUid = "77777777-2222-3333-4444-555555555555";
const std::string kInfo = "netif_rx_netns_info";

// The first cgroup2 mount of this machine (hybrid hosts mount it at
// /sys/fs/cgroup/unified), or "".
std::string cgroup2_mount() {
  std::ifstream in("/proc/self/mountinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.find(" - cgroup2 ") == std::string::npos) continue;
    std::vector<std::string> fields;
    std::size_t at = 0;
    while (at < line.size() && fields.size() < 5) {
      const auto end = line.find(' ', at);
      fields.push_back(line.substr(at, end - at));
      at = end == std::string::npos ? line.size() : end + 1;
    }
    if (fields.size() == 5) return fields[4];
  }
  return "";
}

std::uint32_t netns_of_pid(pid_t pid) {
  struct stat st {};
  const std::string path = "/proc/" + std::to_string(pid) + "/ns/net";
  if (::stat(path.c_str(), &st) != 0) return 0;
  return static_cast<std::uint32_t>(st.st_ino);
}

// Processes that sleep in namespaces and cgroups of the test, and the cgroup
// folders made for them: killed and removed, deepest first, when it goes.
class Sleepers {
 public:
  explicit Sleepers(std::string cgroup_root) : root_(std::move(cgroup_root)) {}
  ~Sleepers() {
    for (pid_t pid : pids_) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    for (auto it = folders_.rbegin(); it != folders_.rend(); ++it) ::rmdir(it->c_str());
  }
  Sleepers(const Sleepers&) = delete;
  Sleepers& operator=(const Sleepers&) = delete;

  // Starts argv (which ends in a sleep) and moves it into `cgroup` (relative
  // to the root, made here). Returns its pid, or -1.
  pid_t start(const std::vector<std::string>& argv, const std::string& cgroup) {
    std::string path = root_;
    for (const auto& part : std::filesystem::path(cgroup)) {
      path += "/" + part.string();
      if (::mkdir(path.c_str(), 0755) == 0) folders_.push_back(path);
    }
    const pid_t pid = ::fork();
    if (pid < 0) return -1;
    if (pid == 0) {
      std::vector<char*> args;
      for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
      args.push_back(nullptr);
      const int null = ::open("/dev/null", O_RDWR);
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::execvp(args[0], args.data());
      ::_exit(127);
    }
    pids_.push_back(pid);
    std::ofstream(path + "/cgroup.procs") << pid << "\n";
    return pid;
  }

 private:
  std::string root_;
  std::vector<pid_t> pids_;
  std::vector<std::string> folders_;
};

// Waits (bounded) until `pid` is in a namespace other than `host`.
std::uint32_t wait_for_own_netns(pid_t pid, std::uint32_t host) {
  for (int i = 0; i < 200; ++i) {
    const std::uint32_t inode = netns_of_pid(pid);
    if (inode != 0 && inode != host) return inode;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

// A UDP datagram on the loopback of pid's namespace (brought up first).
void loopback_packet(pid_t pid) {
  const std::string net = "--net=/proc/" + std::to_string(pid) + "/ns/net";
  run_or_fail({"nsenter", net, "ip", "link", "set", "lo", "up"});
  run_or_fail({"nsenter", net, "bash", "-c", "echo x > /dev/udp/127.0.0.1/9"});
}

std::string containerd_sandbox(const std::string& netns_path) {
  return R"({"ociVersion":"1.1.0","annotations":{"io.kubernetes.cri.container-type":"sandbox",)"
         R"("io.kubernetes.cri.sandbox-name":"web-0","io.kubernetes.cri.sandbox-namespace":"shop",)"
         R"("io.kubernetes.cri.sandbox-uid":")" +
         kWebUid + R"("},"linux":{"namespaces":[{"type":"pid"},{"type":"network","path":")" +
         netns_path + R"("}]}})";
}

// Capabilities of the exporter's threads by name: comm -> CapEff.
std::map<std::string, std::uint64_t> thread_capabilities(pid_t pid) {
  std::map<std::string, std::uint64_t> out;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& entry : std::filesystem::directory_iterator(tasks)) {
    std::ifstream comm_file(entry.path() / "comm");
    std::string comm;
    std::getline(comm_file, comm);
    std::ifstream status(entry.path() / "status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("CapEff:", 0) == 0) out[comm] |= std::stoull(line.substr(7), nullptr, 16);
    }
  }
  return out;
}

class NetnsOwners : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::remove_all(files_);
    std::filesystem::create_directories(files_ + "/k8s.io/4f1e");
    std::filesystem::create_directories(files_ + "/pods/backend_api-0_" + kApiUid + "/api");
  }
  void TearDown() override { std::filesystem::remove_all(files_); }

  // The namespaces, the bundle, the processes (as root with every
  // capability, as a container's root is: reading their ns/net takes
  // CAP_SYS_PTRACE) and the info series each should get.
  void build_scene() {
    ASSERT_FALSE(cgroup_root_.empty()) << "no cgroup2 mount in /proc/self/mountinfo";
    named_ = network_.add_namespace("n");
    sandbox_ = network_.add_namespace("s");
    std::ofstream(files_ + "/k8s.io/4f1e/config.json")
        << containerd_sandbox("/run/netns/" + sandbox_);

    host_ = netns_of_pid(::getpid());
    const std::string subtree = "netif_rx_test_" + std::to_string(::getpid());
    const std::vector<std::string> unshared = {"unshare", "--net", "--", "sleep", "120"};
    api_ = sleepers_.start(unshared, subtree +
                                         "/kubepods.slice/kubepods-burstable.slice/"
                                         "kubepods-burstable-pod66666666_2222_3333_4444_"
                                         "555555555555.slice/cri-containerd-0123abcd.scope");
    first_ = sleepers_.start(unshared, subtree + "/kubepods/besteffort/pod" + kWebUid + "/c1");
    ASSERT_GT(api_, 0);
    ASSERT_GT(first_, 0);
    api_netns_ = wait_for_own_netns(api_, host_);
    shared_netns_ = wait_for_own_netns(first_, host_);
    ASSERT_NE(api_netns_, 0U);
    ASSERT_NE(shared_netns_, 0U);
    const pid_t second = sleepers_.start(
        {"nsenter", "--net=/proc/" + std::to_string(first_) + "/ns/net", "--", "sleep", "120"},
        subtree + "/kubepods/pod" + kOtherUid + "/c2");
    ASSERT_GT(second, 0);
    for (int i = 0; i < 200 && netns_of_pid(second) != shared_netns_; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_EQ(netns_of_pid(second), shared_netns_);

    host_info_ = {{"kind", "host"}, {"netns", std::to_string(host_)}};
    named_info_ = {
        {"kind", "named"}, {"netns", std::to_string(netns_inode(named_))}, {"netns_name", named_}};
    bundle_info_ = {{"kind", "pod"},
                    {"namespace", "shop"},
                    {"pod", "web-0"},
                    {"pod_uid", kWebUid},
                    {"netns", std::to_string(netns_inode(sandbox_))},
                    {"netns_name", sandbox_}};
    process_info_ = {{"kind", "pod"},
                     {"namespace", "backend"},
                     {"pod", "api-0"},
                     {"pod_uid", kApiUid},
                     {"netns", std::to_string(api_netns_)}};
    ambiguous_info_ = {{"kind", "ambiguous"}, {"netns", std::to_string(shared_netns_)}};
  }

  std::string config() const {
    return "poll_interval: 200ms\nnamespaces: all\nbpf_stats:\n  mode: off\n"
           "attribution:\n  bundle_roots: [" +
           files_ + "/k8s.io]\n  pod_logs_root: " + files_ + "/pods\n";
  }

  // A packet in every namespace of the scene.
  void traffic() {
    ASSERT_EQ(send_udp(named_, 0, "127.0.0.1", 1, 10), 1);
    ASSERT_EQ(send_udp(sandbox_, 0, "127.0.0.1", 1, 10), 1);
    ASSERT_EQ(send_udp("", 0, "127.0.0.1", 1, 10), 1);
    loopback_packet(api_);
    loopback_packet(first_);
  }

  static bool has(const Series& series, const Labels& labels) {
    return series.count(series_key(kInfo, labels)) == 1;
  }

  const std::string prefix_ = "ow" + std::to_string(::getpid() % 100000);
  const std::string files_ = "/tmp/netif_rx_owners." + std::to_string(::getpid());
  TestNetwork network_{prefix_};
  const std::string cgroup_root_ = cgroup2_mount();
  Sleepers sleepers_{cgroup_root_};
  std::string named_, sandbox_;
  std::uint32_t host_ = 0, api_netns_ = 0, shared_netns_ = 0;
  pid_t api_ = -1, first_ = -1;
  Labels host_info_, named_info_, bundle_info_, process_info_, ambiguous_info_;
};

TEST_F(NetnsOwners, NamesPodsNamedNamespacesAndTheHostThroughHttp) {
  ASSERT_NO_FATAL_FAILURE(build_scene());
  ExporterProcess exporter(config());
  ASSERT_TRUE(exporter.wait_ready()) << exporter.log();
  ASSERT_NO_FATAL_FAILURE(traffic());

  const Series series = scrape_until(
      exporter,
      [&](const Series& s) {
        return has(s, host_info_) && has(s, named_info_) && has(s, bundle_info_) &&
               has(s, process_info_) && has(s, ambiguous_info_);
      },
      20000);
  EXPECT_TRUE(has(series, host_info_)) << series_key(kInfo, host_info_);
  EXPECT_TRUE(has(series, named_info_)) << series_key(kInfo, named_info_);
  EXPECT_TRUE(has(series, bundle_info_)) << series_key(kInfo, bundle_info_);
  EXPECT_TRUE(has(series, process_info_)) << series_key(kInfo, process_info_);
  EXPECT_TRUE(has(series, ambiguous_info_)) << series_key(kInfo, ambiguous_info_);

  // The join: every namespace of the data has exactly one info series (so
  // group_left keeps every counter), and the pod's counter joins its pod.
  std::set<std::string> data_netns;
  for (const auto& [key, value] : series) {
    if (key.rfind("netif_rx_packets_total{", 0) == 0) data_netns.insert(labels_of(key)["netns"]);
  }
  EXPECT_GE(data_netns.size(), 5U);
  for (const auto& netns : data_netns) {
    EXPECT_EQ(count_where(series, kInfo, {{"netns", netns}}), 1) << "netns " << netns;
  }
  EXPECT_GE(sum_where(series, "netif_rx_packets_total",
                      {{"netns", std::to_string(api_netns_)}, {"device", "lo"}}),
            1);
  EXPECT_EQ(count_where(series, kInfo, {}), static_cast<int>(data_netns.size()));
  EXPECT_GE(sum_where(series, "netif_rx_exporter_netns_attribution_scans_total", {}), 2);

  // Least privilege: CAP_SYS_PTRACE in the attribution's thread alone.
  EXPECT_EQ(sum_where(series, "netif_rx_exporter_capabilities_retained",
                      {{"capability", "CAP_SYS_PTRACE"}}),
            1);
  for (const auto& [thread, effective] : thread_capabilities(exporter.pid())) {
    if (thread == "netif_rx_owners") {
      EXPECT_EQ(effective, 1ULL << 19) << thread;  // CAP_SYS_PTRACE
    } else if (thread != "netif_rx_poll") {
      EXPECT_EQ(effective, 0U) << thread;
    }
  }

  // Printed for the record: the series of a pod, a named namespace, the host.
  for (const auto& labels : {bundle_info_, process_info_, named_info_, host_info_}) {
    std::cout << series_key(kInfo, labels) << " 1\n";
  }
  std::cout << "scan duration: "
            << sum_where(series, "netif_rx_exporter_netns_attribution_scan_duration_seconds", {})
            << " s\n";
  EXPECT_EQ(exporter.stop(), 0) << exporter.log();
}

// Started without CAP_SYS_PTRACE, the exporter degrades: the bundles and
// the mounts still name their namespaces; the processes it can't read are
// counted, and their namespace is unknown rather than guessed.
TEST_F(NetnsOwners, WithoutPtraceProcessesAreCountedUnreadable) {
  ASSERT_NO_FATAL_FAILURE(build_scene());
  ExporterProcess exporter(config(), {}, "", {"setpriv", "--bounding-set=-sys_ptrace", "--"});
  ASSERT_TRUE(exporter.wait_ready()) << exporter.log();
  ASSERT_NO_FATAL_FAILURE(traffic());
  const Labels unknown{{"kind", "unknown"}, {"netns", std::to_string(api_netns_)}};
  const Series series = scrape_until(
      exporter,
      [&](const Series& s) {
        return has(s, host_info_) && has(s, named_info_) && has(s, bundle_info_) && has(s, unknown);
      },
      20000);
  EXPECT_TRUE(has(series, host_info_));
  EXPECT_TRUE(has(series, named_info_));
  EXPECT_TRUE(has(series, bundle_info_));
  EXPECT_TRUE(has(series, unknown)) << series_key(kInfo, unknown);
  EXPECT_GE(sum_where(series, "netif_rx_exporter_netns_attribution_unreadable_processes", {}), 3);
  EXPECT_EQ(count_where(series, "netif_rx_exporter_capabilities_retained",
                        {{"capability", "CAP_SYS_PTRACE"}}),
            0);
  for (const auto& [thread, effective] : thread_capabilities(exporter.pid())) {
    if (thread != "netif_rx_poll") {
      EXPECT_EQ(effective, 0U) << thread;
    }
  }
  EXPECT_EQ(exporter.stop(), 0) << exporter.log();
}

// copy_labels: the data families carry the owner's namespace and pod too.
TEST_F(NetnsOwners, CopiesOwnerLabelsOntoTheDataWhenAskedTo) {
  ASSERT_NO_FATAL_FAILURE(build_scene());
  ExporterProcess exporter(config() + "  copy_labels: true\n");
  ASSERT_TRUE(exporter.wait_ready()) << exporter.log();
  ASSERT_NO_FATAL_FAILURE(traffic());
  const Labels pod_lo{{"device", "lo"},
                      {"namespace", "backend"},
                      {"pod", "api-0"},
                      {"netns", std::to_string(api_netns_)}};
  const Series series = scrape_until(
      exporter,
      [&](const Series& s) { return sum_where(s, "netif_rx_packets_total", pod_lo) >= 1; }, 20000);
  EXPECT_GE(sum_where(series, "netif_rx_packets_total", pod_lo), 1);
  EXPECT_GE(count_where(series, "netif_rx_skbs_total", pod_lo), 1);
  // The host's series get no owner labels.
  EXPECT_EQ(count_where(series, "netif_rx_packets_total",
                        {{"netns", std::to_string(host_)}, {"pod", "api-0"}}),
            0);
  EXPECT_EQ(exporter.stop(), 0) << exporter.log();
}

// A namespace that goes away: its info series goes with its counters (a
// device of another namespace idle for stale_after is forgotten).
TEST_F(NetnsOwners, TheInfoOfANamespaceThatWentAwayGoesWithItsSeries) {
  ASSERT_NO_FATAL_FAILURE(build_scene());
  ExporterProcess exporter(config() + "stale_after: 1s\n");
  ASSERT_TRUE(exporter.wait_ready()) << exporter.log();
  ASSERT_NO_FATAL_FAILURE(traffic());
  // Traffic until resolved: an idle device is forgotten after 1s, before the
  // next scan may run (at most one every 2s).
  const Series before = scrape_until(
      exporter,
      [&](const Series& s) {
        send_udp(named_, 0, "127.0.0.1", 1, 10);
        return has(s, named_info_);
      },
      20000);
  ASSERT_TRUE(has(before, named_info_));
  const std::string inode = named_info_.at("netns");
  ASSERT_TRUE(run_or_fail({"ip", "netns", "del", named_}));  // (TestNetwork tries again)
  const Series after = scrape_until(
      exporter,
      [&](const Series& s) {
        return count_where(s, kInfo, {{"netns", inode}}) == 0;
      },
      20000);
  EXPECT_EQ(count_where(after, kInfo, {{"netns", inode}}), 0);
  EXPECT_EQ(count_where(after, "netif_rx_packets_total", {{"netns", inode}}), 0);
  EXPECT_TRUE(has(after, host_info_));
  EXPECT_EQ(exporter.stop(), 0) << exporter.log();
}

// The scan's cost over real processes: 1,000 sleeping processes in 10
// namespaces of their own, each in its pod's kubelet-shaped cgroup, beside
// the machine's own. Printed, not asserted on time (the sanitizer build is
// several times slower than a release build); the result must be exact.
TEST_F(NetnsOwners, ScanOfAThousandProcesses) {
  ASSERT_FALSE(cgroup_root_.empty()) << "no cgroup2 mount in /proc/self/mountinfo";
  constexpr int kPods = 10;
  constexpr int kPerPod = 100;
  const std::uint32_t host = netns_of_pid(::getpid());
  const std::string subtree = "netif_rx_test_" + std::to_string(::getpid());
  std::vector<std::uint32_t> pod_netns;
  for (int pod = 0; pod < kPods; ++pod) {
    char uid[64];
    std::snprintf(uid, sizeof uid, "%08d-2222-3333-4444-555555555555", pod);
    const std::string cgroup = subtree + "/kubepods/burstable/pod" + uid + "/c";
    const pid_t leader = sleepers_.start({"unshare", "--net", "--", "sleep", "120"}, cgroup);
    ASSERT_GT(leader, 0);
    pod_netns.push_back(wait_for_own_netns(leader, host));
    ASSERT_NE(pod_netns.back(), 0U);
    for (int i = 1; i < kPerPod; ++i) {
      ASSERT_GT(sleepers_.start({"nsenter", "--net=/proc/" + std::to_string(leader) + "/ns/net",
                                 "--", "sleep", "120"},
                                cgroup),
                0);
    }
  }
  // Bounded wait until every process is in its namespace (nsenter has run).
  ProcessScan scan;
  for (int attempt = 0; attempt < 100; ++attempt) {
    scan = scan_processes("/proc", host, 65536);
    std::size_t in_pods = 0;
    for (std::uint32_t inode : pod_netns) in_pods += scan.pod_uids.count(inode);
    if (in_pods == kPods && scan.processes >= kPods * kPerPod) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::vector<double> took;
  for (int run = 0; run < 5; ++run) {
    const auto started = std::chrono::steady_clock::now();
    scan = scan_processes("/proc", host, 65536);
    took.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count());
  }
  std::sort(took.begin(), took.end());
  for (std::size_t pod = 0; pod < pod_netns.size(); ++pod) {
    ASSERT_EQ(scan.pod_uids.count(pod_netns[pod]), 1U);
    EXPECT_EQ(scan.pod_uids.at(pod_netns[pod]).size(), 1U);
  }
  EXPECT_GE(scan.processes, static_cast<std::size_t>(kPods * kPerPod));
  std::cout << "process scan: " << scan.processes << " processes (" << kPods * kPerPod << " in "
            << kPods << " pod namespaces), median " << took[2] << " ms, best " << took[0]
            << " ms\n";
}

}  // namespace
}  // namespace netif_rx::test
