// The real netif_rx_exporter binary, started as a user would start it.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "http_client.h"

namespace netif_rx::test {

class ExporterProcess {
 public:
  // Starts the binary with `config_yaml` as its configuration file and a free
  // loopback port; extra flags are appended. With `netns` (a name under
  // /run/netns), the exporter runs in that network namespace, which is then
  // its "host" namespace, and is scraped there. `command_prefix` runs it
  // through another program (e.g. unshare), which must exec it in the end.
  // `binary`: another build of the exporter (empty: the one under test).
  // `environment`: NAME=value entries added to the exporter's environment.
  ExporterProcess(const std::string& config_yaml, const std::vector<std::string>& extra_flags = {},
                  const std::string& netns = "",
                  const std::vector<std::string>& command_prefix = {},
                  const std::string& binary = "", const std::vector<std::string>& environment = {});
  ~ExporterProcess();
  ExporterProcess(const ExporterProcess&) = delete;
  ExporterProcess& operator=(const ExporterProcess&) = delete;

  // Waits until /-/ready answers 200 or the process exits; false on failure
  // (then log() says why). The limits are generous: the sanitizer build
  // starts and joins its 256 HTTP workers (and drops every thread's
  // capabilities) several times slower than a release build, more so on a
  // busy machine; how fast a release build stops is the e2e test's concern.
  bool wait_ready(int timeout_ms = 30000);
  // SIGTERM and wait; returns the exit code (-1 when it had to be killed).
  int stop(int timeout_ms = 10000) { return stop_with(SIGTERM, timeout_ms); }
  // The same with another signal of a clean stop (SIGINT).
  int stop_with(int signal, int timeout_ms = 10000);
  // SIGKILL and wait: a crash, nothing of the exporter's own teardown runs.
  void kill_hard();
  // Sends `signal` (SIGHUP: a reload; SIGTERM: a stop not waited for) and returns.
  void send(int signal) const;

  Series scrape();
  // One GET in the exporter's namespace.
  HttpResponse get(const std::string& path);
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string log() const;

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;
  std::string netns_;
};

// A TCP port on 127.0.0.1 that nothing listens on right now.
int free_port();

// A command prefix (ExporterProcess's `command_prefix`) that runs the
// exporter in a private mount namespace with tracefs mounted, as the classic
// tracepoint needs, leaving the host's mounts as they are.
std::vector<std::string> with_tracefs();

}  // namespace netif_rx::test
