// The probe's control map (struct netif_rx_control in bpf/netif_rx.h): which
// loaded program counts, and since when the counts run. An exporter attaches
// its own program while the old one still counts, then hands the counting
// over in one write of the map's entry: no event is counted by neither
// program, and while the entry's NETIF_RX_CONTROL_HANDOVER flag is set, none
// by both (the new program leaves an event the old one marked).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "netif_rx.h"
#include "util/unique_fd.h"

namespace netif_rx {

// The name of the control map in the kernel and in the store. The BPF object
// declares its entry as the variable of the section .data.control, a map
// libbpf names after the section; the object is always given the kept map or
// a new one (see create_control_map()) before load.
constexpr const char* kControlMapName = "probe_control";
constexpr const char* kControlSectionMapName = ".data.control";

// Whether `name` is the object's control map: the section's name, which
// libbpf 1.1 keeps once the object reuses a map, or the reused map's own,
// which other libbpf versions take.
bool is_control_map_name(std::string_view name);

// A new control map, its entry zero (no program counts): the map an exporter
// gives its object when none is kept. Throws ProbeError.
UniqueFd create_control_map();

// Checks that `fd` is a control map of the shape every layout shares; returns
// a description of what it is instead (empty: it is one).
std::string control_map_mismatch(int fd);

// The entry of the control map `fd`. Throws ProbeError.
netif_rx_control read_control(int fd);

// Writes the entry of the control map `fd` in one update: from then on only
// the program of `control.generation` counts. Throws ProbeError.
void write_control(int fd, const netif_rx_control& control);

// CLOCK_BOOTTIME now, in nanoseconds (the clock of counting_since_ns).
std::uint64_t boot_time_ns();

// A CLOCK_BOOTTIME instant in seconds since the Unix epoch; 0 for 0.
double unix_seconds_of_boot_time(std::uint64_t boot_ns);

}  // namespace netif_rx
