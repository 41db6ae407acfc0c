// The single owner of a pin directory: an exclusive flock(2) on the
// directory itself (bpffs holds no regular files, so no lock file can live
// there), held for the exporter's lifetime. Another exporter pinning to the
// same directory fails and names the holder's pid; exporters with distinct
// pin directories never meet.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "util/unique_fd.h"

namespace netif_rx {

class PinLock {
 public:
  // Creates `directory` if missing (its parent must exist), checks that it
  // is on a BPF filesystem and locks it. Throws ProbeError.
  static PinLock acquire(const std::string& directory);
  // For removing the pins (`unpin`): locks `directory` when it exists
  // (nullopt when it does not), never creating it. Throws ProbeError when it
  // is not on a BPF filesystem, or when an exporter holds the lock (naming
  // its pid): pins in use are never removed.
  static std::optional<PinLock> acquire_existing(const std::string& directory);

 private:
  explicit PinLock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

// The pid that holds a FLOCK on the file (`device`, `inode`) according to
// `proc_locks` (the text of /proc/locks); nullopt when none is listed or the
// holder is outside this pid namespace (listed as pid 0 or -1).
std::optional<long> flock_holder(std::string_view proc_locks, dev_t device, ino_t inode);

}  // namespace netif_rx
