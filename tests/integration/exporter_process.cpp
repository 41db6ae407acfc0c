#include "exporter_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace netif_rx::test {

std::vector<std::string> with_tracefs() {
  return {"unshare",
          "--mount",
          "--propagation",
          "private",
          "sh",
          "-c",
          "mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing; "
          "exec \"$0\" \"$@\""};
}

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

namespace {

// Moves the calling process into /run/netns/<netns>; true on success.
bool enter_netns(const std::string& netns) {
  const int fd = ::open(("/run/netns/" + netns).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::setns(fd, CLONE_NEWNET) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

ExporterProcess::ExporterProcess(const std::string& config_yaml,
                                 const std::vector<std::string>& extra_flags,
                                 const std::string& netns,
                                 const std::vector<std::string>& command_prefix,
                                 const std::string& binary,
                                 const std::vector<std::string>& environment)
    : netns_(netns) {
  char dir_template[] = "/tmp/netif_rx_test.XXXXXX";
  dir_ = ::mkdtemp(dir_template);
  std::ofstream(dir_ + "/config.yaml") << config_yaml;
  port_ = free_port();

  std::vector<std::string> argv{binary.empty() ? std::string(NETIF_RX_EXPORTER_BINARY) : binary,
                                "--config.file=" + dir_ + "/config.yaml",
                                "--web.listen-address=127.0.0.1:" + std::to_string(port_)};
  argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
  argv.insert(argv.begin(), command_prefix.begin(), command_prefix.end());
  const std::string log_path = dir_ + "/exporter.log";
  std::vector<std::string> added_environment = environment;  // putenv keeps the pointers

  pid_ = ::fork();
  if (pid_ == 0) {
    const int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    if (!netns_.empty() && !enter_netns(netns_)) ::_exit(126);
    for (auto& entry : added_environment) ::putenv(entry.data());
    std::vector<char*> args;
    for (auto& arg : argv) args.push_back(arg.data());
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
}

ExporterProcess::~ExporterProcess() {
  stop();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

bool ExporterProcess::wait_ready(int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (pid_ <= 0 || ::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    if (get("/-/ready").status == 200) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

int ExporterProcess::stop_with(int signal, int timeout_ms) {
  if (pid_ <= 0) return -1;
  ::kill(pid_, signal);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return -1;
}

void ExporterProcess::send(int signal) const {
  if (pid_ > 0) ::kill(pid_, signal);
}

void ExporterProcess::kill_hard() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

HttpResponse ExporterProcess::get(const std::string& path) {
  if (netns_.empty()) return http_get(port_, path);
  // A child enters the namespace (this process stays where it is) and hands
  // back the status and the body through a pipe.
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {};
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    HttpResponse response;
    if (enter_netns(netns_)) response = http_get(port_, path);
    std::string out = std::to_string(response.status) + "\n" + response.body;
    const char* data = out.data();
    std::size_t left = out.size();
    while (left > 0) {
      const ssize_t n = ::write(fds[1], data, left);
      if (n <= 0) break;
      data += n;
      left -= static_cast<std::size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string raw;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) raw.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  if (child > 0) ::waitpid(child, &status, 0);
  HttpResponse response;
  const auto newline = raw.find('\n');
  if (newline == std::string::npos) return response;
  response.status = std::stoi(raw.substr(0, newline));
  response.body = raw.substr(newline + 1);
  return response;
}

Series ExporterProcess::scrape() {
  const HttpResponse response = get("/metrics");
  return response.status == 200 ? parse_exposition(response.body) : Series{};
}

std::string ExporterProcess::log() const {
  std::ifstream in(dir_ + "/exporter.log");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace netif_rx::test
