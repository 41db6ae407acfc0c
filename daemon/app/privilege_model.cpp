#include "app/privilege_model.h"

#include <bpf/bpf.h>
#include <linux/capability.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "sys/privileges.h"

namespace netif_rx {
namespace {

// 0 when a thread holding no capability may read the map, else the errno.
int read_without_capabilities(int map_fd) {
  int result = 0;
  std::thread reader([&result, map_fd] {
    if (int err = drop_this_thread_capabilities(); err != 0) {
      result = err;
      return;
    }
    // The first key (or ENOENT for an empty map): a real read through the
    // descriptor, which is what the kernel checks. Keys are at most 64 bytes.
    std::vector<unsigned char> key(64);
    if (bpf_map_get_next_key(map_fd, nullptr, key.data()) != 0 && errno != ENOENT) {
      result = errno;
    }
  });
  reader.join();
  return result;
}

}  // namespace

std::string capability_name(int capability) {
  switch (capability) {
    case CAP_BPF:
      return "CAP_BPF";
    case CAP_SYS_ADMIN:
      return "CAP_SYS_ADMIN";
    case CAP_PERFMON:
      return "CAP_PERFMON";
    default:
      return "capability " + std::to_string(capability);
  }
}

PrivilegeModel decide_privilege_model(int map_fd) {
  const int err = read_without_capabilities(map_fd);
  if (err == 0) {
    return {std::nullopt, "the kernel lets a thread without capabilities read the maps"};
  }
  if (err != EPERM && err != EACCES) {
    throw std::runtime_error("reading a map from a thread without capabilities failed: " +
                             std::string(std::strerror(err)));
  }
  std::string reason = "the kernel refuses bpf(2) to a thread without CAP_BPF (" +
                       std::string(std::strerror(err)) +
                       "; kernels before 5.19 with kernel.unprivileged_bpf_disabled set)";
  if (has_permitted(CAP_BPF)) return {CAP_BPF, std::move(reason)};
  if (has_permitted(CAP_SYS_ADMIN)) return {CAP_SYS_ADMIN, std::move(reason)};
  throw std::runtime_error(reason + ", and this process holds neither CAP_BPF nor CAP_SYS_ADMIN");
}

std::string describe(const PrivilegeModel& model) {
  if (!model.kept) {
    return "every thread holds no capability after startup: " + model.reason;
  }
  return "the map thread keeps " + capability_name(*model.kept) +
         " (effective, that thread only); every other thread holds none: " + model.reason;
}

}  // namespace netif_rx
