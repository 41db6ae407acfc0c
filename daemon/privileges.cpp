#include "privileges.h"

#include <sys/capability.h>

#include <fstream>

namespace netif_rx {
namespace {

bool has_effective(cap_value_t capability) {
  cap_t caps = cap_get_proc();
  if (caps == nullptr) return false;
  cap_flag_value_t value = CAP_CLEAR;
  const bool ok = cap_get_flag(caps, capability, CAP_EFFECTIVE, &value) == 0;
  cap_free(caps);
  return ok && value == CAP_SET;
}

}  // namespace

bool can_load_bpf() {
  return has_effective(CAP_SYS_ADMIN) || (has_effective(CAP_BPF) && has_effective(CAP_PERFMON));
}

bool can_enable_bpf_stats() { return has_effective(CAP_SYS_ADMIN); }

std::string describe_capabilities() {
  std::ifstream status("/proc/self/status");
  std::string line;
  std::string out;
  while (std::getline(status, line)) {
    if (line.rfind("Cap", 0) == 0) {
      const auto colon = line.find(':');
      const auto value = line.find_first_not_of(" \t", colon + 1);
      out += (out.empty() ? "" : " ") + line.substr(0, colon) + "=" + line.substr(value);
    }
  }
  return out;
}

}  // namespace netif_rx
