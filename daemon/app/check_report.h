// The output of `netif_rx_exporter check`: one line per requirement with
// ✓ or ✗, and for a ✗ the fix on the next line.
#pragma once

#include <string>
#include <vector>

namespace netif_rx {

struct CheckResult {
  bool ok = false;
  bool blocking = true;  // a ✗ that stops the exporter from running
  std::string what;      // "kernel 6.1.0 (5.10 or later needed)"
  std::string fix;       // for a ✗
};

// The report text; colours only when `colour` (a terminal).
std::string format_check_report(const std::vector<CheckResult>& results, bool colour);

// 0 when nothing blocking failed, else 1.
int check_exit_code(const std::vector<CheckResult>& results);

// "6.1.0-18-amd64", 6, 1 -> true: the release is at least MAJOR.MINOR.
bool kernel_release_at_least(const std::string& release, int major, int minor);

}  // namespace netif_rx
