// Carrying a previous layout's counts into this layout's maps, once the
// counting was handed over to this exporter's program and no run of the
// previous program that counted is in flight (its maps no longer change):
// reads them,
// and writes one entry per device into `carried_counters`, the totals into
// `carried_totals` and the removed counts into this probe's removed slot;
// the names the previous probe recorded are copied into `device_names`.
#pragma once

#include <cstddef>
#include <string>

#include "continuity/previous_layout.h"

struct bpf_object;

namespace netif_rx {

struct CarrySummary {
  std::size_t devices = 0;                // entries written to carried_counters
  std::size_t names = 0;                  // names copied
  std::size_t slots_without_device = 0;   // counted as removed
  std::size_t devices_over_capacity = 0;  // counted as removed
};

// Returns when every run of a BPF program that started before the call has
// finished (an RCU grace period, which the kernel waits for on an update of
// a map of maps). Throws ProbeError.
void wait_for_running_programs();

// Carries `previous`'s counts into the loaded `object`'s maps, for
// `possible_cpus` CPUs. Call it after the handover's write and a
// wait_for_running_programs() after it (hand_over() does both). Throws
// ProbeError.
CarrySummary carry_previous_layout(const PreviousLayout& previous, bpf_object* object,
                                   unsigned possible_cpus);

}  // namespace netif_rx
