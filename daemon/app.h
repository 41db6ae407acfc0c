// The running exporter: probe, poller and HTTP server, in teardown order.
#pragma once

#include <memory>
#include <vector>

#include "cli.h"
#include "config.h"
#include "self_metrics.h"
#include "snapshot_store.h"

namespace netif_rx {

class Probe;
class LinkWatcher;
class BpfStatsControl;
class Poller;
class HttpServer;

class App {
 public:
  App(Config config, CliOptions cli);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Loads and attaches the probe, polls once, starts polling and serving.
  // Throws ProbeError, ListenError or std::runtime_error with one clear line.
  void start();
  // Stops serving, then polling, then detaches the probe. Idempotent.
  void stop();

  bool ready() const;
  std::vector<int> listening_ports() const;
  // The bpf_stats sampling helper's pid, or -1.
  int bpf_stats_helper_pid() const;

 private:
  Config config_;
  CliOptions cli_;
  SelfMetrics self_metrics_;
  SnapshotStore store_;
  // Destroyed in reverse order: HTTP first, then the poller, then the link
  // watcher (it deletes map entries), then the probe.
  std::unique_ptr<Probe> probe_;
  std::unique_ptr<LinkWatcher> links_;
  // The statistics' descriptor or sampling helper (read by the poller).
  std::unique_ptr<BpfStatsControl> bpf_stats_;
  std::unique_ptr<Poller> poller_;
  std::unique_ptr<HttpServer> http_;
};

}  // namespace netif_rx
