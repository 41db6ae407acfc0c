// CPU lists in the kernel's sysfs format ("0-3,8,10-11").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netif_rx {

// Parses a list such as "0-3,8"; nullopt when it is malformed.
std::optional<std::vector<unsigned>> parse_cpu_list(std::string_view text);

// The CPUs present on this machine now (/sys/devices/system/cpu/present).
// Per-CPU maps have a slot for every *possible* CPU, and a CPU that left
// keeps its counts there: sums take every slot, these are what
// netif_rx_exporter_cpus counts.
// When the file can't be read or parsed: CPUs 0 to hardware_concurrency-1.
std::vector<unsigned> present_cpus(const std::string& path = "/sys/devices/system/cpu/present");

}  // namespace netif_rx
