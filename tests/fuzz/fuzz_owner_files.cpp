// The attribution's line formats: a mountinfo text, a /proc/<pid>/cgroup text,
// a /var/log/pods folder name and a systemd-machined registry file, from one
// input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "owners/libpod_cgroup.h"
#include "owners/machines.h"
#include "owners/nsfs_mounts.h"
#include "owners/pod_logs.h"
#include "owners/pod_uid.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)netif_rx::parse_nsfs_mounts(text);
  (void)netif_rx::pod_uids_in_cgroup(text);
  (void)netif_rx::parse_pod_log_folder(text);
  (void)netif_rx::libpod_container_in_cgroup(text);
  (void)netif_rx::parse_machine_file(text);
  (void)netif_rx::parse_net_link(text);
  return 0;
}
