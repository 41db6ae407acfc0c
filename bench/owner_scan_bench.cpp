#include "owner_scan_bench.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "owners/process_scan.h"
#include "util/unique_fd.h"

namespace netif_rx::bench {
namespace {

constexpr int kPods = 10;
constexpr int kPerPod = 100;

std::string cgroup2_root() {
  std::ifstream mounts("/proc/self/mounts");
  std::string device;
  std::string where;
  std::string type;
  std::string rest;
  while (mounts >> device >> where >> type && std::getline(mounts, rest)) {
    if (type == "cgroup2") return where;
  }
  throw std::runtime_error("no cgroup2 mount in /proc/self/mounts");
}

std::uint32_t netns_of(pid_t pid) {
  struct stat st {};
  const std::string path = "/proc/" + std::to_string(pid) + "/ns/net";
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::uint32_t>(st.st_ino) : 0;
}

// The children and the cgroup subtree, gone with this object.
class PodProcesses {
 public:
  explicit PodProcesses(const std::string& subtree) : subtree_(subtree) {}
  ~PodProcesses() {
    for (const pid_t pid : pids_) ::kill(pid, SIGKILL);
    for (const pid_t pid : pids_) ::waitpid(pid, nullptr, 0);
    std::error_code ignored;
    // cgroups are removed leaf first; remove_all would try their files.
    for (auto dir = leaves_.rbegin(); dir != leaves_.rend(); ++dir) {
      for (std::filesystem::path p = *dir; p.string().size() > subtree_.size();
           p = p.parent_path()) {
        ::rmdir(p.c_str());
      }
    }
    ::rmdir(subtree_.c_str());
  }
  PodProcesses(const PodProcesses&) = delete;
  PodProcesses& operator=(const PodProcesses&) = delete;

  // A child that joins `netns_of` (or a new namespace when 0) and sleeps,
  // moved into `cgroup`; returns once it is in its namespace.
  pid_t start(pid_t netns_of_pid, const std::string& cgroup) {
    int ready[2];
    if (::pipe2(ready, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    UniqueFd read_end(ready[0]);
    UniqueFd write_end(ready[1]);
    const std::string netns_path = "/proc/" + std::to_string(netns_of_pid) + "/ns/net";
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {  // system calls only
      bool ok = true;
      if (netns_of_pid == 0) {
        ok = ::unshare(CLONE_NEWNET) == 0;
      } else {
        const int fd = ::open(netns_path.c_str(), O_RDONLY | O_CLOEXEC);
        ok = fd >= 0 && ::setns(fd, CLONE_NEWNET) == 0;
      }
      const char byte = ok ? 1 : 0;
      (void)::write(write_end.get(), &byte, 1);
      for (;;) ::pause();
    }
    pids_.push_back(pid);
    write_end.reset();
    pollfd wait{read_end.get(), POLLIN, 0};
    char byte = 0;
    if (::poll(&wait, 1, 5000) != 1 || ::read(read_end.get(), &byte, 1) != 1 || byte != 1) {
      throw std::runtime_error("a child did not enter its network namespace (needs root)");
    }
    std::filesystem::create_directories(cgroup);
    if (leaves_.empty() || leaves_.back() != cgroup) leaves_.push_back(cgroup);
    std::ofstream(cgroup + "/cgroup.procs") << pid << std::flush;
    return pid;
  }

 private:
  std::string subtree_;
  std::vector<pid_t> pids_;
  std::vector<std::string> leaves_;
};

}  // namespace

OwnerScanCost owner_scan_cost(int runs) {
  const std::string subtree = cgroup2_root() + "/netif_rx_bench_" + std::to_string(::getpid());
  PodProcesses children(subtree);
  const std::uint32_t host = netns_of(::getpid());
  std::vector<std::uint32_t> pod_netns;
  for (int pod = 0; pod < kPods; ++pod) {
    char uid[64];
    std::snprintf(uid, sizeof uid, "%08d-2222-3333-4444-555555555555", pod);
    const std::string cgroup = subtree + "/kubepods/burstable/pod" + uid + "/c";
    const pid_t leader = children.start(0, cgroup);
    pod_netns.push_back(netns_of(leader));
    for (int i = 1; i < kPerPod; ++i) children.start(leader, cgroup);
  }
  OwnerScanCost out;
  std::vector<double> took;
  ProcessScan scan;
  for (int run = 0; run < runs; ++run) {
    const auto started = std::chrono::steady_clock::now();
    scan = scan_processes("/proc", host, 65536);
    took.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count());
  }
  out.ms = summarize(took);
  out.processes = scan.processes;
  out.every_pod_found = true;
  for (const std::uint32_t inode : pod_netns) {
    const auto found = scan.pod_uids.find(inode);
    out.every_pod_found =
        out.every_pod_found && found != scan.pod_uids.end() && found->second.size() == 1;
  }
  return out;
}

}  // namespace netif_rx::bench
