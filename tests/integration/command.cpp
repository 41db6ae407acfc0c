#include "command.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>

namespace netif_rx::test {

CommandResult run_command(const std::vector<std::string>& argv) {
  CommandResult result;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return result;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::dup2(pipe_fds[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  std::array<char, 4096> buf;
  ssize_t n;
  while ((n = ::read(pipe_fds[0], buf.data(), buf.size())) > 0) result.output.append(buf.data(), n);
  ::close(pipe_fds[0]);
  int status = 0;
  if (pid > 0 && ::waitpid(pid, &status, 0) == pid && WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  }
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
