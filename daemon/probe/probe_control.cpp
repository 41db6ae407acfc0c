#include "probe/probe_control.h"

#include <bpf/bpf.h>
#include <time.h>

#include <cerrno>

#include "probe/probe_error.h"
#include "util/errno_text.h"

namespace netif_rx {
namespace {

constexpr std::uint32_t kControlKey = 0;

std::uint64_t nanoseconds(const timespec& t) {
  return static_cast<std::uint64_t>(t.tv_sec) * 1000000000ULL +
         static_cast<std::uint64_t>(t.tv_nsec);
}

}  // namespace

std::string control_map_mismatch(int fd) {
  bpf_map_info info{};
  std::uint32_t length = sizeof(info);
  if (bpf_obj_get_info_by_fd(fd, &info, &length) != 0) return "it is not a BPF map";
  if (info.type != BPF_MAP_TYPE_ARRAY || info.key_size != sizeof(std::uint32_t) ||
      info.value_size != sizeof(netif_rx_control) || info.max_entries != 1) {
    return "it is map '" + std::string(info.name) + "' (type " + std::to_string(info.type) +
           ", key " + std::to_string(info.key_size) + " bytes, value " +
           std::to_string(info.value_size) + " bytes, " + std::to_string(info.max_entries) +
           " entries) where the probe's control map is an array of one 16-byte entry";
  }
  return "";
}

netif_rx_control read_control(int fd) {
  netif_rx_control control{};
  if (bpf_map_lookup_elem(fd, &kControlKey, &control) != 0)
    throw ProbeError("reading the probe's control map failed: " + errno_text(errno));
  return control;
}

void write_control(int fd, const netif_rx_control& control) {
  if (bpf_map_update_elem(fd, &kControlKey, &control, BPF_ANY) != 0)
    throw ProbeError("writing the probe's control map failed: " + errno_text(errno));
}

std::uint64_t boot_time_ns() {
  timespec now{};
  clock_gettime(CLOCK_BOOTTIME, &now);
  return nanoseconds(now);
}

double unix_seconds_of_boot_time(std::uint64_t boot_ns) {
  if (boot_ns == 0) return 0;
  timespec boot{};
  timespec real{};
  if (clock_gettime(CLOCK_BOOTTIME, &boot) != 0 || clock_gettime(CLOCK_REALTIME, &real) != 0)
    return 0;
  const auto seconds = [](std::uint64_t ns) { return static_cast<double>(ns) / 1e9; };
  return seconds(nanoseconds(real)) - seconds(nanoseconds(boot)) + seconds(boot_ns);
}

}  // namespace netif_rx
