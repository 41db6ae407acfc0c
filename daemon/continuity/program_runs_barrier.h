// Waiting until every run of a BPF program that started before now is over:
// an RCU grace period, which the kernel waits for on each update of a map of
// maps. The two maps are made when the barrier is, by a thread that may
// create maps; wait() needs only their descriptors, so a thread that dropped
// its capabilities can wait (where it may write the probe's maps).
#pragma once

#include "util/unique_fd.h"

namespace netif_rx {

class ProgramRunsBarrier {
 public:
  ProgramRunsBarrier();  // throws ProbeError
  // Returns once every program run that started before the call is over.
  // Throws ProbeError.
  void wait() const;

 private:
  UniqueFd inner_;
  UniqueFd outer_;
};

}  // namespace netif_rx
