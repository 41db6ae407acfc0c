// The HTML page on "/": what the exporter is, its version, links to metrics and probes.
#pragma once

#include <string>

#include "util/build_info.h"

namespace netif_rx {

std::string landing_page(const std::string& telemetry_path, const BuildInfo& info);

}  // namespace netif_rx
