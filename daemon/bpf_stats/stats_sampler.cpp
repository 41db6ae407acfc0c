#include "bpf_stats/stats_sampler.h"

#include <bpf/bpf.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "bpf_stats/sampling_schedule.h"
#include "sys/privileges.h"
#include "util/log.h"

namespace netif_rx {
namespace {

constexpr int kLifeFd = 3;
constexpr int kReportFd = 4;

void report(char code, int err = 0) {
  const char message[2] = {code, static_cast<char>(err > 127 ? 127 : err)};
  // Non-blocking: a report the exporter has no room for is dropped.
  (void)!::write(kReportFd, message, code == 'E' ? 2 : 1);
}

[[noreturn]] void run_helper(int life_fd, int report_fd, Milliseconds window, Milliseconds period,
                             pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(0);  // the exporter died before prctl
  ::prctl(PR_SET_NAME, "netif_rx_stats");

  // Exactly two descriptors: the life pipe (3) and the report pipe (4).
  const int life = ::fcntl(life_fd, F_DUPFD, 100);
  const int reports = ::fcntl(report_fd, F_DUPFD, 100);
  if (life < 0 || reports < 0 || ::dup2(life, kLifeFd) < 0 || ::dup2(reports, kReportFd) < 0)
    ::_exit(1);
  ::close_range(kReportFd + 1, ~0U, 0);
  ::fcntl(kReportFd, F_SETFL, O_NONBLOCK);

  if (int err = keep_only_capability(CAP_SYS_ADMIN); err != 0) {
    report('E', err);
    ::_exit(1);
  }

  const SamplingSchedule schedule(window, period, std::chrono::steady_clock::now());
  int stats_fd = -1;
  bool failed_this_window = false;
  while (true) {
    const auto now = std::chrono::steady_clock::now();
    const bool want = schedule.in_window(now);
    if (want && stats_fd < 0 && !failed_this_window) {
      stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
      if (stats_fd < 0) {
        failed_this_window = true;
        report('E', errno);
      } else {
        report('1');
      }
    } else if (!want) {
      failed_this_window = false;
      if (stats_fd >= 0) {
        ::close(stats_fd);
        stats_fd = -1;
        report('0');
      }
    }
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(
        schedule.next_change(now) - std::chrono::steady_clock::now());
    pollfd life_poll{kLifeFd, POLLIN, 0};
    const int ready = ::poll(&life_poll, 1, wait.count() < 1 ? 1 : static_cast<int>(wait.count()));
    if (ready > 0) {
      char byte = 0;
      if (::read(kLifeFd, &byte, 1) <= 0) ::_exit(0);  // the exporter is gone
    }
  }
}

}  // namespace

StatsSampler::StatsSampler(Milliseconds window, Milliseconds period) {
  int life[2];
  int reports[2];
  if (::pipe2(life, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
  UniqueFd life_read(life[0]);
  life_.reset(life[1]);
  if (::pipe2(reports, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
  report_.reset(reports[0]);
  UniqueFd report_write(reports[1]);

  const pid_t parent = ::getpid();
  helper_ = ::fork();
  if (helper_ < 0) {
    throw std::runtime_error("forking the BPF statistics helper failed: " +
                             std::string(std::strerror(errno)));
  }
  if (helper_ == 0) run_helper(life_read.get(), report_write.get(), window, period, parent);
  ::fcntl(report_.get(), F_SETFL, O_NONBLOCK);
  log::info("BPF statistics helper started",
            {{"pid", helper_}, {"window", window}, {"period", period}});
}

StatsSampler::~StatsSampler() {
  if (helper_ <= 0) return;
  life_.reset();  // end-of-file: the helper exits and its stats fd closes
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  int status = 0;
  while (::waitpid(helper_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(helper_, SIGKILL);
      ::waitpid(helper_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

bool StatsSampler::window_open() {
  char buffer[256];
  while (!gone_) {
    const ssize_t n = ::read(report_.get(), buffer, sizeof buffer);
    if (n < 0) break;  // EAGAIN: nothing new
    if (n == 0) {
      gone_ = true;
      open_ = false;
      log::warn("the BPF statistics helper exited; statistics are no longer sampled",
                {{"pid", helper_}});
      break;
    }
    for (ssize_t i = 0; i < n; ++i) {
      if (buffer[i] == '1') {
        open_ = true;
      } else if (buffer[i] == '0') {
        open_ = false;
      } else if (buffer[i] == 'E') {
        open_ = false;
        const int err = i + 1 < n ? buffer[++i] : 0;
        if (!failure_logged_) {
          failure_logged_ = true;
          log::warn(
              "the BPF statistics helper could not enable statistics; "
              "netif_rx_bpf_stats_enabled stays 0",
              {{"err", std::strerror(err)}, {"errno", err}});
        }
      }
    }
  }
  return open_;
}

}  // namespace netif_rx
