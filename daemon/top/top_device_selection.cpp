#include "top/top_device_selection.h"

#include <algorithm>

#include "top/top_queue_matrix.h"

namespace netif_rx {

void select_device(RateTable& table, const TopReading& before, const TopReading& after,
                   const std::string& name) {
  table.device = name;
  std::erase_if(table.devices, [&](const TopDeviceRows& device) { return device.id.name != name; });
  if (!table.queues_absent.empty()) return;
  for (const TopDeviceRows& device : table.devices) {
    table.queue_matrices[device.id] = compute_queue_matrix(before, after, device.id);
  }
}

}  // namespace netif_rx
