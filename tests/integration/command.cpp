#include "command.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstring>

namespace netif_rx::test {

CommandResult run_command(const std::vector<std::string>& argv) {
  CommandResult result;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return result;
  // posix_spawn, not fork: the child shares the parent's memory until it execs, where fork first
  // copies the page tables of this sanitizer build's large mappings (under emulation, in the
  // kernel matrix's integration boot, most of a test's time).
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  ::posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    result.exit_code = 127;  // as a shell reports a command it cannot run
    result.output = argv[0] + ": " + std::strerror(spawned);
    return result;
  }
  std::array<char, 4096> buf;
  ssize_t n;
  while ((n = ::read(pipe_fds[0], buf.data(), buf.size())) > 0) result.output.append(buf.data(), n);
  ::close(pipe_fds[0]);
  int status = 0;
  if (::waitpid(pid, &status, 0) == pid && WIFEXITED(status))
    result.exit_code = WEXITSTATUS(status);
  return result;
}

bool run_or_fail(const std::vector<std::string>& argv) {
  const CommandResult result = run_command(argv);
  if (result.exit_code == 0) return true;
  std::string line;
  for (const auto& arg : argv) line += arg + " ";
  ADD_FAILURE() << "command failed (exit " << result.exit_code << "): " << line << "\n"
                << result.output;
  return false;
}

}  // namespace netif_rx::test
