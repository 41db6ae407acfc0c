// The counting path shared by the daemon and `top`: the probe, the watcher of
// this namespace's devices, and the poller that turns both into snapshots.
#pragma once

#include <memory>
#include <string>

#include "config/config.h"

namespace netif_rx {

class Probe;
class LinkWatcher;
class Poller;
class SnapshotStore;
class PollObserver;

struct CountingPipeline {
  // Declared in teardown order's reverse: the poller goes first, the probe last.
  std::unique_ptr<Probe> probe;
  std::unique_ptr<LinkWatcher> links;
  std::unique_ptr<Poller> poller;

  CountingPipeline();
  CountingPipeline(CountingPipeline&&) noexcept;
  CountingPipeline& operator=(CountingPipeline&&) noexcept;
  ~CountingPipeline();
};

// Where the probe is pinned across restarts (ProbeOptions::pin_path and
// fd_store); an empty path and no fd_store: not pinned.
struct PinOptions {
  std::string path;
  bool fd_store = false;  // ProbeOptions::fd_store
};

// Loads and attaches the probe for `config`, starts following this
// namespace's devices, and builds a poller publishing into `store` (not yet
// polling: call poll_once() or start()). Errors of the device watcher and of
// deletions are logged and counted in `metrics`. Throws ProbeError.
CountingPipeline build_counting_pipeline(const Config& config, const std::string& btf_path,
                                         SnapshotStore& store, PollObserver& metrics,
                                         const PinOptions& pins = {});

}  // namespace netif_rx
