// The privilege model against the real kernel: the startup read that decides
// what the polling thread keeps, a drop that leaves one thread CAP_BPF, and
// a drop that leaves a thread alone that already gave its capabilities up.
#include "sys/privileges.h"

#include <bpf/bpf.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "app/check_report.h"
#include "app/privilege_model.h"
#include "util/unique_fd.h"

namespace netif_rx::test {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Before 5.19 a non-zero kernel.unprivileged_bpf_disabled refuses bpf(2) to
// a thread without CAP_BPF; told here independently of the exporter.
bool kernel_refuses_reads_without_capabilities() {
  utsname name{};
  ::uname(&name);
  if (kernel_release_at_least(name.release, 5, 19)) return false;
  return read_text("/proc/sys/kernel/unprivileged_bpf_disabled").rfind('0', 0) != 0;
}

TEST(PrivilegesTest, TheStartupReadDecidesWhatThePollingThreadKeeps) {
  ASSERT_EQ(::geteuid(), 0U) << "run as root: creating a BPF map needs CAP_BPF";
  UniqueFd map(bpf_map_create(BPF_MAP_TYPE_HASH, "nrx_probe", 8, 16, 4, nullptr));
  ASSERT_TRUE(map.valid()) << "bpf_map_create: " << std::strerror(errno);
  const PrivilegeModel model = decide_privilege_model(map.get());
  if (kernel_refuses_reads_without_capabilities()) {
    ASSERT_TRUE(model.kept) << model.reason;
    EXPECT_EQ(*model.kept, CAP_BPF);
  } else {
    EXPECT_FALSE(model.kept) << model.reason;
  }
  // The deciding thread gave up its capabilities, not this one.
  EXPECT_TRUE(has_permitted(CAP_BPF));
}

// In a child process (the drop is irreversible): one thread keeps CAP_BPF,
// with `second_keeper` another keeps CAP_SYS_PTRACE (the polling and the
// attribution threads), the others none. Returns the child's failure, empty
// on success.
std::string drop_keeping_cap_bpf_in_one_thread(bool second_keeper = false) {
  std::atomic<pid_t> keeper{0};
  std::atomic<pid_t> other_id{0};
  std::atomic<bool> done{false};
  std::thread worker([&] {
    keeper = static_cast<pid_t>(::syscall(SYS_gettid));
    while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  std::thread other([&] {
    other_id = static_cast<pid_t>(::syscall(SYS_gettid));
    while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  while (keeper == 0 || other_id == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::string failure;
  try {
    std::vector<KeptCapabilities> kept{{keeper, 1ULL << CAP_BPF}};
    if (second_keeper) kept.push_back({other_id, 1ULL << CAP_SYS_PTRACE});
    drop_all_capabilities(kept);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  const auto status = [](pid_t tid) {
    return parse_capability_sets(read_text("/proc/self/task/" + std::to_string(tid) + "/status"));
  };
  const auto kept = status(keeper);
  const auto self = status(static_cast<pid_t>(::syscall(SYS_gettid)));
  if (failure.empty() &&
      (!kept || kept->effective != (1ULL << CAP_BPF) || kept->permitted != (1ULL << CAP_BPF) ||
       kept->bounding != (1ULL << CAP_BPF))) {
    failure = "the keeper thread does not hold exactly CAP_BPF";
  }
  if (failure.empty() && (!self || self->effective != 0 || self->permitted != 0)) {
    failure = "the main thread kept capabilities";
  }
  const auto second = status(other_id);
  const std::uint64_t second_expected = second_keeper ? 1ULL << CAP_SYS_PTRACE : 0;
  if (failure.empty() &&
      (!second || second->effective != second_expected || second->permitted != second_expected)) {
    failure = "the other thread does not hold exactly what it should";
  }
  done = true;
  worker.join();
  other.join();
  return failure;
}

// Runs `drop` in a forked child; its failure text, empty on success.
void expect_in_child(std::string (*drop)(bool), bool argument) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    const std::string failure = drop(argument);
    if (!failure.empty()) (void)!::write(pipe_fds[1], failure.data(), failure.size());
    ::_exit(failure.empty() ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  std::string failure;
  char buffer[256];
  ssize_t n = 0;
  while ((n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0) failure.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << failure;
}

// A thread that gave up its capabilities itself (as the HTTP server's threads
// do as they start) is left alone: its poll() is not cut short with EINTR.
// The argument is unused (expect_in_child's shape).
std::string drop_beside_a_thread_blocked_in_poll(bool) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "pipe failed";
  std::atomic<bool> dropped_itself{false};
  std::atomic<int> poll_result{0};
  std::atomic<int> poll_errno{0};
  std::thread blocked([&] {
    dropped_itself = drop_this_thread_capabilities() == 0;
    pollfd fd{pipe_fds[0], POLLIN, 0};
    poll_result = ::poll(&fd, 1, 10000);
    poll_errno = errno;
  });
  while (!dropped_itself) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // into its poll()
  std::string failure;
  try {
    drop_all_capabilities();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  (void)!::write(pipe_fds[1], "x", 1);
  blocked.join();
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  if (failure.empty() && poll_result != 1) {
    failure = "the thread's poll() returned " + std::to_string(poll_result.load()) + " (" +
              std::strerror(poll_errno) + ") instead of its data";
  }
  return failure;
}

TEST(PrivilegesTest, AThreadThatDroppedItsOwnIsNotInterrupted) {
  ASSERT_EQ(::geteuid(), 0U) << "run as root";
  expect_in_child(drop_beside_a_thread_blocked_in_poll, false);
}

TEST(PrivilegesTest, TwoThreadsKeepTheirOwnCapabilityAndEveryOtherHoldsNone) {
  ASSERT_EQ(::geteuid(), 0U) << "run as root";
  expect_in_child(drop_keeping_cap_bpf_in_one_thread, true);
}

TEST(PrivilegesTest, OneThreadKeepsCapBpfAndEveryOtherHoldsNone) {
  ASSERT_EQ(::geteuid(), 0U) << "run as root";
  expect_in_child(drop_keeping_cap_bpf_in_one_thread, false);
}

}  // namespace
}  // namespace netif_rx::test
