// Who owns a namespace, end to end against real kernel objects, without a
// kubelet: namespaces: all with the attribution reading
// - a named namespace (`ip netns add`): kind named;
// - a fake containerd sandbox bundle whose config.json names the real path
//   of another `ip netns` namespace: kind pod, from the bundle's annotations;
// - a process in a namespace of its own (`unshare --net`) moved into a
//   kubelet-shaped cgroup (systemd driver) under a cgroup v2 subtree the test
//   makes, named by a fake /var/log/pods folder: kind pod, from the process;
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

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "command.h"
#include "exporter_process.h"
#include "lifecycle_support.h"
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

class NetnsOwners : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::remove_all(files_);
    std::filesystem::create_directories(files_ + "/k8s.io/4f1e");
    std::filesystem::create_directories(files_ + "/pods/backend_api-0_" + kApiUid + "/api");
  }
  void TearDown() override { std::filesystem::remove_all(files_); }

  const std::string prefix_ = "ow" + std::to_string(::getpid() % 100000);
  const std::string files_ = "/tmp/netif_rx_owners." + std::to_string(::getpid());
  TestNetwork network_{prefix_};
};

TEST_F(NetnsOwners, NamesPodsNamedNamespacesAndTheHostThroughHttp) {
  const std::string cgroup_root = cgroup2_mount();
  ASSERT_FALSE(cgroup_root.empty()) << "no cgroup2 mount in /proc/self/mountinfo";
  const std::string subtree = "netif_rx_test_" + std::to_string(::getpid());
  Sleepers sleepers(cgroup_root);

  const std::string named = network_.add_namespace("n");
  const std::string sandbox = network_.add_namespace("s");
  std::ofstream(files_ + "/k8s.io/4f1e/config.json") << containerd_sandbox("/run/netns/" + sandbox);

  const std::uint32_t host = netns_of_pid(::getpid());
  // Capabilities dropped: a process the exporter may read without CAP_SYS_PTRACE.
  const std::vector<std::string> sleep = {
      "setpriv", "--bounding-set=-all", "--inh-caps=-all", "--", "sleep", "120"};
  std::vector<std::string> unshared = {"unshare", "--net", "--"};
  unshared.insert(unshared.end(), sleep.begin(), sleep.end());
  const pid_t api = sleepers.start(
      unshared, subtree + "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" +
                    std::string("66666666_2222_3333_4444_555555555555") +
                    ".slice/cri-containerd-0123abcd.scope");
  const pid_t first =
      sleepers.start(unshared, subtree + "/kubepods/besteffort/pod" + kWebUid + "/c1");
  ASSERT_GT(api, 0);
  ASSERT_GT(first, 0);
  const std::uint32_t api_netns = wait_for_own_netns(api, host);
  const std::uint32_t shared_netns = wait_for_own_netns(first, host);
  ASSERT_NE(api_netns, 0U);
  ASSERT_NE(shared_netns, 0U);
  std::vector<std::string> joined = {"nsenter", "--net=/proc/" + std::to_string(first) + "/ns/net",
                                     "--"};
  joined.insert(joined.end(), sleep.begin(), sleep.end());
  const pid_t second = sleepers.start(joined, subtree + "/kubepods/pod" + kOtherUid + "/c2");
  ASSERT_GT(second, 0);
  for (int i = 0; i < 200 && netns_of_pid(second) != shared_netns; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(netns_of_pid(second), shared_netns);

  ExporterProcess exporter(
      "poll_interval: 200ms\nnamespaces: all\nbpf_stats:\n  mode: off\n"
      "attribution:\n  bundle_roots: [" +
      files_ +
      "/k8s.io]\n"
      "  pod_logs_root: " +
      files_ + "/pods\n");
  ASSERT_TRUE(exporter.wait_ready()) << exporter.log();

  ASSERT_EQ(send_udp(named, 0, "127.0.0.1", 1, 10), 1);
  ASSERT_EQ(send_udp(sandbox, 0, "127.0.0.1", 1, 10), 1);
  ASSERT_EQ(send_udp("", 0, "127.0.0.1", 1, 10), 1);
  loopback_packet(api);
  loopback_packet(first);

  const std::string named_inode = std::to_string(netns_inode(named));
  const std::string sandbox_inode = std::to_string(netns_inode(sandbox));
  const Labels host_info{{"kind", "host"}, {"netns", std::to_string(host)}};
  const Labels named_info{{"kind", "named"}, {"netns", named_inode}, {"netns_name", named}};
  const Labels bundle_info{{"kind", "pod"},      {"namespace", "shop"},    {"pod", "web-0"},
                           {"pod_uid", kWebUid}, {"netns", sandbox_inode}, {"netns_name", sandbox}};
  const Labels process_info{{"kind", "pod"},
                            {"namespace", "backend"},
                            {"pod", "api-0"},
                            {"pod_uid", kApiUid},
                            {"netns", std::to_string(api_netns)}};
  const Labels ambiguous_info{{"kind", "ambiguous"}, {"netns", std::to_string(shared_netns)}};
  const auto has = [](const Series& s, const Labels& labels) {
    return s.count(series_key(kInfo, labels)) == 1;
  };
  const Series series = scrape_until(
      exporter,
      [&](const Series& s) {
        return has(s, host_info) && has(s, named_info) && has(s, bundle_info) &&
               has(s, process_info) && has(s, ambiguous_info);
      },
      20000);
  EXPECT_TRUE(has(series, host_info)) << series_key(kInfo, host_info);
  EXPECT_TRUE(has(series, named_info)) << series_key(kInfo, named_info);
  EXPECT_TRUE(has(series, bundle_info)) << series_key(kInfo, bundle_info);
  EXPECT_TRUE(has(series, process_info)) << series_key(kInfo, process_info);
  EXPECT_TRUE(has(series, ambiguous_info)) << series_key(kInfo, ambiguous_info);

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
                      {{"netns", std::to_string(api_netns)}, {"device", "lo"}}),
            1);
  EXPECT_EQ(count_where(series, kInfo, {}), static_cast<int>(data_netns.size()));
  EXPECT_GE(sum_where(series, "netif_rx_exporter_netns_attribution_scans_total", {}), 2);

  // Printed for the record: the series of a pod, a named namespace, the host.
  for (const auto& labels : {bundle_info, process_info, named_info, host_info}) {
    std::cout << series_key(kInfo, labels) << " 1\n";
  }
  std::cout << "scan duration: "
            << sum_where(series, "netif_rx_exporter_netns_attribution_scan_duration_seconds", {})
            << " s\n";
  EXPECT_EQ(exporter.stop(), 0) << exporter.log();
}

}  // namespace
}  // namespace netif_rx::test
