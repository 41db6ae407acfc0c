// `netif_rx_exporter top ...` run as a subprocess, its stdout and stderr
// captured apart: on pipes, or with stdout on a pseudo-terminal.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "util/unique_fd.h"

namespace netif_rx::test {

class TopProcess {
 public:
  enum class Stdout { pipe, terminal };

  // Starts the exporter binary with `args` (e.g. {"top", "--once"}).
  explicit TopProcess(const std::vector<std::string>& args, Stdout stdout_kind = Stdout::pipe);
  ~TopProcess();  // kills and reaps the process if it still runs
  TopProcess(const TopProcess&) = delete;
  TopProcess& operator=(const TopProcess&) = delete;

  // Reads until stderr contains `text`; false when the process exits or the
  // time runs out first.
  bool wait_for_stderr(const std::string& text, int timeout_ms);
  // Reads until stdout contains `text`; false as above.
  bool wait_for_stdout(const std::string& text, int timeout_ms);
  void signal(int signal_number);
  // Waits for the exit and reads everything; the exit code, or -1 when it
  // was killed by a signal or had to be killed after `timeout_ms`.
  int wait(int timeout_ms);

  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }

 private:
  // Reads what is there, waiting at most `timeout_ms`; false at EOF of both.
  bool pump(int timeout_ms);

  pid_t pid_ = -1;
  UniqueFd out_fd_;
  UniqueFd err_fd_;
  std::string out_;
  std::string err_;
};

}  // namespace netif_rx::test
