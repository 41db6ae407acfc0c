#include "sys/privileges.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "util/read_file.h"

namespace netif_rx {
namespace {

bool has_effective(cap_value_t capability) {
  cap_t caps = cap_get_proc();
  if (caps == nullptr) return false;
  cap_flag_value_t value = CAP_CLEAR;
  const bool ok = cap_get_flag(caps, capability, CAP_EFFECTIVE, &value) == 0;
  cap_free(caps);
  return ok && value == CAP_SET;
}

// Highest capability number the kernel knows. Plain system calls: the
// sampling helper calls this right after fork().
int last_capability() {
  int last = CAP_LAST_CAP;
  const int fd = ::open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return last;
  char text[16] = {};
  if (::read(fd, text, sizeof text - 1) > 0) last = std::atoi(text);
  ::close(fd);
  return last;
}

// Sets the calling thread's sets with raw system calls (async-signal-safe):
// permitted = effective = `keep_mask`, inheritable and ambient empty,
// bounding set reduced to `keep_mask` (when CAP_SETPCAP is held), and
// no_new_privs. Returns 0 or an errno.
int restrict_this_thread(std::uint64_t keep_mask, int last_cap) {
  for (int cap = 0; cap <= last_cap; ++cap) {
    if (keep_mask & (1ULL << cap)) continue;
    // EPERM without CAP_SETPCAP, EINVAL past the last: the bounding set is
    // then left as is; it can't grant anything once the others are empty.
    ::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  }
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
    return errno;
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  for (int i = 0; i < 2; ++i) {
    const auto word = static_cast<std::uint32_t>(keep_mask >> (32 * i));
    data[i].permitted = word;
    data[i].effective = word;
  }
  if (::syscall(SYS_capset, &header, data) != 0) return errno;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  return 0;
}

std::atomic<int> g_threads_done{0};
std::atomic<int> g_thread_error{0};
int g_last_cap = CAP_LAST_CAP;
// Read by the signal handler: plain arrays, set before any signal is sent.
KeptCapabilities g_kept[kMaxKeptThreads] = {};
std::size_t g_kept_count = 0;

std::uint64_t kept_mask_of(pid_t thread) {
  for (std::size_t i = 0; i < g_kept_count; ++i) {
    if (g_kept[i].thread == thread) return g_kept[i].mask;
  }
  return 0;
}

void drop_signal_handler(int) {
  const int saved = errno;
  const auto self = static_cast<pid_t>(::syscall(SYS_gettid));
  const std::uint64_t keep = kept_mask_of(self);
  if (int err = restrict_this_thread(keep, g_last_cap); err != 0) g_thread_error.store(err);
  g_threads_done.fetch_add(1);
  errno = saved;
}

std::vector<pid_t> other_threads() {
  std::vector<pid_t> out;
  const pid_t self = static_cast<pid_t>(::syscall(SYS_gettid));
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return out;
  while (dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    const pid_t tid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (tid != self) out.push_back(tid);
  }
  ::closedir(dir);
  return out;
}

// True when the thread's status says it blocks `signal_number`. Only
// ThreadSanitizer's background thread does so here: it runs none of our
// code, blocks every signal and so keeps its capabilities. A build with
// -fsanitize=thread tolerates that thread; a normal build tolerates none.
bool sanitizer_thread_blocking(const std::string& status, int signal_number) {
#if defined(__SANITIZE_THREAD__)
  const std::size_t at = status.find("\nSigBlk:");
  if (at == std::string::npos) return false;
  const unsigned long long blocked = std::strtoull(status.c_str() + at + 9, nullptr, 16);
  return ((blocked >> (signal_number - 1)) & 1) != 0;
#else
  (void)status;
  (void)signal_number;
  return false;
#endif
}

}  // namespace

bool can_load_bpf() {
  return has_effective(CAP_SYS_ADMIN) || (has_effective(CAP_BPF) && has_effective(CAP_PERFMON));
}

bool can_enable_bpf_stats() { return has_effective(CAP_SYS_ADMIN); }

std::string describe_capabilities() {
  std::ifstream status("/proc/self/status");
  std::string line;
  std::string out;
  while (std::getline(status, line)) {
    if (line.rfind("Cap", 0) == 0) {
      const auto colon = line.find(':');
      const auto value = line.find_first_not_of(" \t", colon + 1);
      out += (out.empty() ? "" : " ") + line.substr(0, colon) + "=" + line.substr(value);
    }
  }
  return out;
}

std::optional<CapabilitySets> parse_capability_sets(std::string_view status_text) {
  CapabilitySets sets;
  int found = 0;
  std::size_t start = 0;
  while (start < status_text.size()) {
    auto end = status_text.find('\n', start);
    if (end == std::string_view::npos) end = status_text.size();
    const std::string_view line = status_text.substr(start, end - start);
    start = end + 1;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || line.substr(0, 3) != "Cap") continue;
    const std::string_view key = line.substr(0, colon);
    const std::uint64_t value =
        std::strtoull(std::string(line.substr(colon + 1)).c_str(), nullptr, 16);
    if (key == "CapInh") {
      sets.inheritable = value;
      ++found;
    } else if (key == "CapPrm") {
      sets.permitted = value;
      ++found;
    } else if (key == "CapEff") {
      sets.effective = value;
      ++found;
    } else if (key == "CapBnd") {
      sets.bounding = value;
    } else if (key == "CapAmb") {
      sets.ambient = value;
    }
  }
  if (found != 3) return std::nullopt;
  return sets;
}

bool holds_only(std::string_view status_text, std::uint64_t mask) {
  const auto sets = parse_capability_sets(status_text);
  if (!sets || sets->permitted != mask || sets->effective != mask || sets->inheritable != 0 ||
      sets->ambient != 0) {
    return false;
  }
  const auto line = status_text.find("\nNoNewPrivs:");
  if (line == std::string_view::npos) return false;
  const auto value = status_text.find_first_not_of(" \t", line + 12);
  return value != std::string_view::npos && status_text[value] == '1';
}

void drop_all_capabilities(const std::vector<KeptCapabilities>& kept) {
  g_last_cap = last_capability();
  g_threads_done = 0;
  g_thread_error = 0;
  if (kept.size() > kMaxKeptThreads) {
    throw std::logic_error("drop_all_capabilities: too many threads keep capabilities");
  }
  g_kept_count = 0;
  for (const KeptCapabilities& thread : kept) {
    if (thread.thread == static_cast<pid_t>(::syscall(SYS_gettid))) {
      throw std::logic_error("drop_all_capabilities: the calling thread cannot keep capabilities");
    }
    g_kept[g_kept_count++] = thread;
  }

  // Other threads first, while this one still may drop bounding sets.
  const int signal_number = SIGRTMIN + 2;
  struct sigaction action {};
  struct sigaction previous {};
  action.sa_handler = drop_signal_handler;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  ::sigaction(signal_number, &action, &previous);
  const auto threads = other_threads();
  int signalled = 0;
  for (pid_t tid : threads) {
    const auto status = read_file("/proc/self/task/" + std::to_string(tid) + "/status");
    if (status && holds_only(*status, kept_mask_of(tid))) continue;
    if (::syscall(SYS_tgkill, ::getpid(), tid, signal_number) == 0) ++signalled;
  }
  // Every thread answers within milliseconds on an idle machine; 260 threads of a sanitizer
  // build on a machine at load 15 took more than 2 s. Only a thread that blocks the signal (no
  // thread of ours does) makes the whole wait run out.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (g_threads_done.load() < signalled && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ::sigaction(signal_number, &previous, nullptr);

  if (int err = restrict_this_thread(0, g_last_cap); err != 0) {
    throw std::runtime_error("dropping capabilities failed: " + std::string(std::strerror(err)));
  }
  if (int err = g_thread_error.load(); err != 0) {
    throw std::runtime_error("dropping capabilities in a thread failed: " +
                             std::string(std::strerror(err)));
  }

  // Check every thread, as the kernel sees it.
  for (pid_t tid : other_threads()) {
    const std::string status =
        read_file("/proc/self/task/" + std::to_string(tid) + "/status").value_or("");
    const auto sets = parse_capability_sets(status);
    if (!sets) continue;  // the thread ended meanwhile
    if (sanitizer_thread_blocking(status, signal_number)) continue;
    const std::uint64_t allowed = kept_mask_of(tid);
    if (sets->permitted != allowed || sets->effective != allowed || sets->inheritable != 0 ||
        sets->ambient != 0) {
      throw std::runtime_error("thread " + std::to_string(tid) +
                               " kept capabilities after they were dropped (it may block "
                               "real-time signals)");
    }
  }
}

int drop_this_thread_capabilities() { return restrict_this_thread(0, last_capability()); }

bool has_permitted(int capability) {
  cap_t caps = cap_get_proc();
  if (caps == nullptr) return false;
  cap_flag_value_t value = CAP_CLEAR;
  const bool ok =
      cap_get_flag(caps, static_cast<cap_value_t>(capability), CAP_PERMITTED, &value) == 0;
  cap_free(caps);
  return ok && value == CAP_SET;
}

int keep_only_capability(int capability) {
  return restrict_this_thread(1ULL << capability, last_capability());
}

}  // namespace netif_rx
