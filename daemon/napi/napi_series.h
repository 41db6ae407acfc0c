// From the NAPI poll counter's maps as read to the series a scrape serves: a
// pure step (no syscalls), unit-tested.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>

#include "napi/napi_reader.h"
#include "napi/napi_snapshot.h"
#include "probe/map_reader.h"

namespace netif_rx {

// The devices that keep per-CPU series (per_cpu.devices, per_cpu.include)
// as the data families export them at this poll: key -> label value.
using PerCpuDeviceLabels = std::unordered_map<netif_rx_device_key, std::string, DeviceKeyHash>;

// Keeps the entries of the devices in `labels` (other devices' polls are
// counted by the probe but not exported), named as there; the backlog by
// CPU and the untracked polls summed over CPUs. The backlog's lines and the
// untracked series count against `budget` first (what max_series leaves
// after the other families); a device whose lines would pass what is left
// is left out whole (counted in left_out_devices), devices in name order.
NapiSnapshot build_napi_snapshot(const NapiCounts& counts, const PerCpuDeviceLabels& labels,
                                 std::size_t budget);

}  // namespace netif_rx
