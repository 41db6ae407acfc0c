#include "oneliner.h"

#include <bpf/bpf.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "util/unique_fd.h"

namespace netif_rx::bench {
namespace {

std::set<__u32> program_ids() {
  std::set<__u32> ids;
  __u32 id = 0;
  while (bpf_prog_get_next_id(id, &id) == 0) ids.insert(id);
  return ids;
}

// True when `program` is an executable file in a folder of PATH.
bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream folders(path ? path : "/usr/sbin:/usr/bin:/sbin:/bin");
  std::string folder;
  while (std::getline(folders, folder, ':'))
    if (!folder.empty() && ::access((folder + "/" + program).c_str(), X_OK) == 0) return true;
  return false;
}

// The last non-empty line of what `fd` holds so far (read without blocking).
std::string last_line(int fd) {
  std::string text;
  char buffer[4096];
  ssize_t got = 0;
  while (text.size() < (1 << 16) && (got = ::read(fd, buffer, sizeof buffer)) > 0)
    text.append(buffer, static_cast<std::size_t>(got));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const auto start = text.rfind('\n');
  return start == std::string::npos ? text : text.substr(start + 1);
}

class OneLiner final : public BenchProgram {
 public:
  OneLiner() {
    for (const char* needed : {"bpftrace", "unshare", "mountpoint"}) {
      if (!on_path(needed))
        throw std::runtime_error(
            std::string("the bpftrace one-liner needs ") + needed + " on PATH: apt-get install " +
            (std::strcmp(needed, "bpftrace") == 0 ? "bpftrace" : "util-linux"));
    }
    const auto before = program_ids();
    // bpftrace runs in a private mount namespace of its own, where tracefs
    // is mounted unless it already is (a systemd host mounts it at boot):
    // the host's mounts are left as they were either way.
    const std::string script =
        "{ mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing; } && "
        "exec bpftrace -e '" +
        std::string(kOneLiner) + "'";
    int errors[2];
    if (::pipe2(errors, O_CLOEXEC | O_NONBLOCK) != 0)
      throw std::runtime_error("pipe for bpftrace's errors: " + std::string(std::strerror(errno)));
    const UniqueFd errors_read(errors[0]);
    UniqueFd errors_write(errors[1]);
    pid_t pid = ::fork();
    if (pid == 0) {
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, STDOUT_FILENO);
      ::dup2(errors_write.get(), STDERR_FILENO);
      ::execlp("unshare", "unshare", "-m", "--propagation", "private", "sh", "-c", script.c_str(),
               static_cast<char*>(nullptr));
      ::_exit(127);
    }
    errors_write = UniqueFd();
    // bpftrace's program: a new tracepoint program named after the event.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    bool exited = false;
    int status = 0;
    while (!program_.valid() && !exited && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      exited = ::waitpid(pid, &status, WNOHANG) == pid;  // a failed mount, a refused load
      for (__u32 id : program_ids()) {
        if (before.count(id)) continue;
        UniqueFd fd(bpf_prog_get_fd_by_id(id));
        bpf_prog_info info{};
        __u32 length = sizeof info;
        if (!fd.valid() || bpf_obj_get_info_by_fd(fd.get(), &info, &length) != 0) continue;
        if (info.type == BPF_PROG_TYPE_TRACEPOINT &&
            std::strncmp(info.name, "netif_receive", 13) == 0) {
          program_ = std::move(fd);
          break;
        }
      }
    }
    if (program_.valid() && !exited) {
      std::ifstream id_file("/proc/" + std::to_string(pid) +
                            "/root/sys/kernel/tracing/events/net/netif_receive_skb/id");
      id_file >> tracepoint_id_;
    }
    // The program lives on through our descriptor; bpftrace's own
    // attachment goes with it.
    if (!exited) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
    }
    if (!program_.valid() || tracepoint_id_ == 0) {
      const std::string said = last_line(errors_read.get());
      throw std::runtime_error(
          std::string(exited ? "bpftrace exited without loading the one-liner"
                             : "bpftrace did not load the one-liner within 30 s") +
          (said.empty()
               ? std::string(" and said nothing (run it by hand: bpftrace -e '") + kOneLiner + "')"
               : ": " + said));
    }
  }
  ~OneLiner() override { detach(); }

  std::string name() const override { return "bpftrace one-liner"; }
  void attach() override {
    if (!events_.empty()) return;
    // One perf event is enough: the tracepoint's program array is global,
    // so the program runs on every CPU (a second event would get EEXIST).
    const long cpus = ::sysconf(_SC_NPROCESSORS_CONF);
    for (int cpu = 0; cpu < cpus && events_.empty(); ++cpu) {
      perf_event_attr attr{};
      attr.type = PERF_TYPE_TRACEPOINT;
      attr.size = sizeof attr;
      attr.config = tracepoint_id_;
      attr.sample_period = 1;
      attr.wakeup_events = 1;
      UniqueFd event(static_cast<int>(
          ::syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC)));
      if (!event.valid()) continue;  // an offline CPU
      if (::ioctl(event.get(), PERF_EVENT_IOC_SET_BPF, program_.get()) != 0 ||
          ::ioctl(event.get(), PERF_EVENT_IOC_ENABLE, 0) != 0)
        throw std::runtime_error("attaching the one-liner: " + std::string(std::strerror(errno)));
      events_.push_back(std::move(event));
    }
    if (events_.empty()) throw std::runtime_error("perf_event_open failed on every CPU");
  }
  void detach() override { events_.clear(); }
  int program_fd() const override { return program_.get(); }

 private:
  UniqueFd program_;
  unsigned long long tracepoint_id_ = 0;
  std::vector<UniqueFd> events_;
};

}  // namespace

std::unique_ptr<BenchProgram> make_oneliner() { return std::make_unique<OneLiner>(); }

}  // namespace netif_rx::bench
