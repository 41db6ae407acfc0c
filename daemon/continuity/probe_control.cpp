#include "continuity/probe_control.h"

#include <bpf/bpf.h>
#include <time.h>

#include <cerrno>

#include "continuity/probe_error.h"
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

bool is_control_map_name(std::string_view name) {
  return name == kControlSectionMapName || name == kControlMapName;
}

UniqueFd create_control_map() {
  UniqueFd map(bpf_map_create(BPF_MAP_TYPE_ARRAY, kControlMapName, sizeof(kControlKey),
                              sizeof(netif_rx_control), 1, nullptr));
  if (!map.valid())
    throw ProbeError("creating the probe's control map failed: " + errno_text(errno));
  return map;
}

netif_rx_control read_control(int fd) {
  netif_rx_control control{};
  if (bpf_map_lookup_elem(fd, &kControlKey, &control) != 0)
    throw ProbeError("reading the probe's control map failed: " + errno_text(errno));
  // An exporter stopped in the middle of its handover leaves the flag set.
  control.counting_since_ns &= ~NETIF_RX_CONTROL_HANDOVER;
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
  // The offset of the two clocks, from the readings closest together: a
  // thread preempted between two readings (a busy host, a guest's vCPU) would
  // shift it by as long as it waited, and the same time would convert to
  // another second in each process.
  std::int64_t best_window = -1;
  double offset_seconds = 0;
  for (int attempt = 0; attempt < 8; ++attempt) {
    timespec before{};
    timespec real{};
    timespec after{};
    if (clock_gettime(CLOCK_BOOTTIME, &before) != 0 || clock_gettime(CLOCK_REALTIME, &real) != 0 ||
        clock_gettime(CLOCK_BOOTTIME, &after) != 0) {
      return 0;
    }
    const auto window = static_cast<std::int64_t>(nanoseconds(after) - nanoseconds(before));
    if (best_window < 0 || window < best_window) {
      best_window = window;
      const std::uint64_t boot_mid =
          nanoseconds(before) + (nanoseconds(after) - nanoseconds(before)) / 2;
      offset_seconds =
          static_cast<double>(nanoseconds(real)) / 1e9 - static_cast<double>(boot_mid) / 1e9;
    }
    if (best_window < 20000) break;  // 20 us: as close as it gets
  }
  return offset_seconds + static_cast<double>(boot_ns) / 1e9;
}

}  // namespace netif_rx
