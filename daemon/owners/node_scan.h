// One scan of the node's sources, as the attribution's configuration names
// them: nsfs mounts (<proc_root>/1/mountinfo), runtime bundles, processes,
// kubelet's pod log folders, systemd-machined's machines. Reads only files,
// each bounded in size.
#pragma once

#include <cstdint>

#include "config/config.h"
#include "owners/bundle_cache.h"
#include "owners/owner_resolution.h"

namespace netif_rx {

// `bundles`: the parsed bundles, kept from one scan to the next.
NodeScan scan_node(const AttributionConfig& config, std::uint32_t host_inum, BundleCache& bundles);

}  // namespace netif_rx
