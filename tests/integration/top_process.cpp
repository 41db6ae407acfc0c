#include "top_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

namespace netif_rx::test {
namespace {

using Clock = std::chrono::steady_clock;

bool read_some(UniqueFd& fd, std::string& into) {
  char buffer[4096];
  const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
  if (n > 0) {
    into.append(buffer, static_cast<std::size_t>(n));
    return true;
  }
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
  fd.reset();  // EOF, or EIO on a terminal whose other side closed
  return false;
}

}  // namespace

TopProcess::TopProcess(const std::vector<std::string>& args, Stdout stdout_kind) {
  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return;
  UniqueFd err_read(err_pipe[0]);
  UniqueFd err_write(err_pipe[1]);
  UniqueFd out_read;
  UniqueFd out_write;
  if (stdout_kind == Stdout::terminal) {
    out_read.reset(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
    if (!out_read.valid() || ::grantpt(out_read.get()) != 0 || ::unlockpt(out_read.get()) != 0) {
      return;
    }
    out_write.reset(::open(::ptsname(out_read.get()), O_RDWR | O_NOCTTY | O_CLOEXEC));
    winsize size{};
    size.ws_col = 72;
    size.ws_row = 40;
    ::ioctl(out_write.get(), TIOCSWINSZ, &size);
  } else {
    int out_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) return;
    out_read.reset(out_pipe[0]);
    out_write.reset(out_pipe[1]);
  }

  std::vector<std::string> argv{NETIF_RX_EXPORTER_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(out_write.get(), STDOUT_FILENO);
    ::dup2(err_write.get(), STDERR_FILENO);
    std::vector<char*> pointers;
    for (auto& arg : argv) pointers.push_back(arg.data());
    pointers.push_back(nullptr);
    ::execv(pointers[0], pointers.data());
    ::_exit(127);
  }
  ::fcntl(out_read.get(), F_SETFL, O_NONBLOCK);
  ::fcntl(err_read.get(), F_SETFL, O_NONBLOCK);
  out_fd_ = std::move(out_read);
  err_fd_ = std::move(err_read);
}

TopProcess::~TopProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

bool TopProcess::pump(int timeout_ms) {
  pollfd fds[2] = {{out_fd_.get(), POLLIN, 0}, {err_fd_.get(), POLLIN, 0}};
  if (!out_fd_.valid() && !err_fd_.valid()) return false;
  if (::poll(fds, 2, timeout_ms) <= 0) return true;
  if (fds[0].revents != 0) read_some(out_fd_, out_);
  if (fds[1].revents != 0) read_some(err_fd_, err_);
  return true;
}

bool TopProcess::wait_for_stderr(const std::string& text, int timeout_ms) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (err_.find(text) == std::string::npos) {
    if (Clock::now() >= deadline || !err_fd_.valid()) return false;
    pump(50);
  }
  return true;
}

bool TopProcess::wait_for_stdout(const std::string& text, int timeout_ms) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (out_.find(text) == std::string::npos) {
    if (Clock::now() >= deadline || !out_fd_.valid()) return false;
    pump(50);
  }
  return true;
}

void TopProcess::signal(int signal_number) {
  if (pid_ > 0) ::kill(pid_, signal_number);
}

int TopProcess::wait(int timeout_ms) {
  if (pid_ <= 0) return -1;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) != pid_) {
    if (Clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
      return -1;
    }
    pump(20);
  }
  pid_ = -1;
  // The process is gone: drain what it wrote (a terminal reports EIO at the end).
  while (out_fd_.valid() || err_fd_.valid()) {
    pollfd fds[2] = {{out_fd_.get(), POLLIN, 0}, {err_fd_.get(), POLLIN, 0}};
    if (::poll(fds, 2, 100) <= 0) break;
    if (fds[0].revents != 0) read_some(out_fd_, out_);
    if (fds[1].revents != 0) read_some(err_fd_, err_);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace netif_rx::test
