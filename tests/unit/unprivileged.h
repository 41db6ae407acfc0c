// Running a piece of a unit test without privileges, also when the tests run
// as root (as they do in CI): a root process reads any file and binds any port.
#pragma once

#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>

namespace netif_rx::test {

// Returns what `body` returns, computed in a child process that dropped to
// the user and group nobody (65534) with no capabilities; a caller that is
// not root runs it directly. "<child failed>" when the child could not run it.
inline std::string as_unprivileged_user(const std::function<std::string()>& body) {
  if (::geteuid() != 0) return body();
  int result_pipe[2];
  if (::pipe(result_pipe) != 0) return "<child failed>";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(result_pipe[0]);
    if (::setgroups(0, nullptr) != 0 || ::setresgid(65534, 65534, 65534) != 0 ||
        ::setresuid(65534, 65534, 65534) != 0) {
      ::_exit(1);
    }
    const std::string result = body();
    const bool written = ::write(result_pipe[1], result.data(), result.size()) ==
                         static_cast<ssize_t>(result.size());
    ::_exit(written ? 0 : 1);
  }
  ::close(result_pipe[1]);
  std::string result;
  char buf[512];
  ssize_t n;
  while ((n = ::read(result_pipe[0], buf, sizeof buf)) > 0) result.append(buf, n);
  ::close(result_pipe[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? result : "<child failed>";
}

}  // namespace netif_rx::test
