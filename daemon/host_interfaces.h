// Names of the network devices in the exporter's own network namespace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

namespace netif_rx {

using InterfaceNames = std::unordered_map<std::uint32_t, std::string>;  // ifindex -> name

// One netlink dump of the links of this namespace (if_nameindex); nullopt
// with errno set when it fails.
std::optional<InterfaceNames> list_host_interfaces();

}  // namespace netif_rx
