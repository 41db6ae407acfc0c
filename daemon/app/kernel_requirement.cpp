#include "app/kernel_requirement.h"

#include <sys/utsname.h>

#include <cstdio>

namespace netif_rx {

std::string running_kernel_release() {
  utsname name{};
  if (::uname(&name) != 0) return "";
  return name.release;
}

std::string kernel_too_old(const std::string& release) {
  int major = 0;
  int minor = 0;
  if (std::sscanf(release.c_str(), "%d.%d", &major, &minor) != 2) return "";
  if (major > kMinimumKernelMajor ||
      (major == kMinimumKernelMajor && minor >= kMinimumKernelMinor)) {
    return "";
  }
  return "kernel " + release +
         " is older than 5.10: its per-CPU hash maps give a re-used entry a deleted one's counts "
         "on other CPUs, so a new device would start with a dead device's packets; upgrade to "
         "Linux 5.10 or later";
}

}  // namespace netif_rx
