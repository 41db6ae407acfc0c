// `check`'s read of the probe's maps, done as the serving process does it.
#pragma once

#include "app/check_report.h"

namespace netif_rx {

class Probe;

// Decides the privilege model as the daemon does (privilege_model.h), then
// reads every map of the loaded `probe` from a thread holding only what
// that model keeps: what the polling thread will hold after startup.
CheckResult check_map_read(const Probe& probe);

}  // namespace netif_rx
