#include "app/check_report.h"

#include <cstdio>

namespace netif_rx {

std::string format_check_report(const std::vector<CheckResult>& results, bool colour) {
  std::string out;
  for (const auto& result : results) {
    const char* mark = result.ok ? "✓" : "✗";
    if (colour) {
      out += result.ok ? "\033[32m" : (result.blocking ? "\033[31m" : "\033[33m");
      out += mark;
      out += "\033[0m";
    } else {
      out += mark;
    }
    out += ' ' + result.what;
    if (!result.ok && !result.blocking) out += " (optional)";
    out += '\n';
    if (!result.ok && !result.fix.empty()) out += "    fix: " + result.fix + '\n';
  }
  const int code = check_exit_code(results);
  out += code == 0 ? "netif_rx_exporter can run on this machine\n"
                   : "netif_rx_exporter can't run on this machine until the ✗ above are fixed\n";
  return out;
}

int check_exit_code(const std::vector<CheckResult>& results) {
  for (const auto& result : results) {
    if (!result.ok && result.blocking) return 1;
  }
  return 0;
}

bool kernel_release_at_least(const std::string& release, int major, int minor) {
  int got_major = 0;
  int got_minor = 0;
  if (std::sscanf(release.c_str(), "%d.%d", &got_major, &got_minor) != 2) return false;
  return got_major > major || (got_major == major && got_minor >= minor);
}

}  // namespace netif_rx
