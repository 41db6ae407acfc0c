// `check`'s lines on this namespace's NICs: each one's driver, RX queue count
// and whether the driver records the RX queue (netif_rx_queue_packets_total).
// Pure.
#pragma once

#include <vector>

#include "app/check_report.h"
#include "app/nic_sysfs.h"

namespace netif_rx {

// One line per NIC, then one for those left out and one for a read error;
// a driver known to record no queue is a ✗ (optional). Names and drivers are
// escaped (printable): they come from the kernel and may hold any byte.
std::vector<CheckResult> check_driver_lines(const NicScan& scan);

}  // namespace netif_rx
