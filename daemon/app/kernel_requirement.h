// The oldest kernel the exporter runs on, and why: checked by `check` and
// before the daemon loads anything.
#pragma once

#include <string>

namespace netif_rx {

// Linux 5.10: before it (d3bec0138bfb, "zero-fill re-used per-cpu map
// element"), an entry of a preallocated per-CPU hash map that is deleted and
// re-used keeps the deleted key's values on every CPU but the inserting one,
// so a new device would start with a dead device's counts.
inline constexpr int kMinimumKernelMajor = 5;
inline constexpr int kMinimumKernelMinor = 10;

// The running kernel's release, as uname(2) gives it ("6.1.0-18-amd64").
std::string running_kernel_release();

// Empty when `release` is 5.10 or later, or cannot be read as a version
// (then the probe's own checks decide); else a one-line error naming the
// kernel, why it is refused and what to do.
std::string kernel_too_old(const std::string& release);

}  // namespace netif_rx
