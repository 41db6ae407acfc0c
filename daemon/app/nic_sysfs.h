// The devices of this namespace that have a parent device (a NIC, a
// virtio-net or Hyper-V function: /sys/class/net/NAME/device), their driver
// and RX queue count, read from sysfs for `check`.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace netif_rx {

struct NicInfo {
  std::string name;           // as the kernel has it (may hold any byte but '/')
  std::string driver;         // basename of device/driver; empty when none is bound
  std::size_t rx_queues = 0;  // queues/rx-* entries
};

struct NicScan {
  std::vector<NicInfo> nics;  // by name, at most the limit asked for
  std::size_t left_out = 0;   // devices with a parent past that limit
  std::string error;          // the class directory could not be read
};

// Reads `class_net` (/sys/class/net): every entry is read with a bound (a
// driver link of at most 4 KiB, at most 65,536 queue entries, 65,536
// devices looked at), nothing followed outside it but the links sysfs has.
NicScan scan_nics(const std::string& class_net, std::size_t max_nics);

}  // namespace netif_rx
