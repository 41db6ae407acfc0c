// Running commands from tests: `ip`, `sysctl`, and the exporter itself.
#pragma once

#include <string>
#include <vector>

namespace netif_rx::test {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs argv (no shell) and waits for it.
CommandResult run_command(const std::vector<std::string>& argv);

// Runs argv and fails the current test (ADD_FAILURE) when it exits non-zero.
bool run_or_fail(const std::vector<std::string>& argv);

}  // namespace netif_rx::test
