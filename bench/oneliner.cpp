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
#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>
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

class OneLiner final : public BenchProgram {
 public:
  OneLiner() {
    const auto before = program_ids();
    // tracefs is mounted in a private mount namespace of bpftrace's own:
    // the host's mounts are left alone.
    const std::string script = "mount -t tracefs nodev /sys/kernel/tracing && exec bpftrace -e '" +
                               std::string(kOneLiner) + "'";
    pid_t pid = ::fork();
    if (pid == 0) {
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, STDOUT_FILENO);
      ::dup2(null, STDERR_FILENO);
      ::execlp("unshare", "unshare", "-m", "--propagation", "private", "sh", "-c", script.c_str(),
               static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // bpftrace's program: a new tracepoint program named after the event.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!program_.valid() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
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
    if (program_.valid()) {
      std::ifstream id_file("/proc/" + std::to_string(pid) +
                            "/root/sys/kernel/tracing/events/net/netif_receive_skb/id");
      id_file >> tracepoint_id_;
    }
    // The program lives on through our descriptor; bpftrace's own
    // attachment goes with it.
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!program_.valid() || tracepoint_id_ == 0)
      throw std::runtime_error("bpftrace did not load the one-liner (is bpftrace installed?)");
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
