// The running exporter: probe, poller and HTTP server, in teardown order.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <vector>

#include "bpf_stats/bpf_stats.h"
#include "cli/cli.h"
#include "config/config.h"
#include "config/config_reload.h"
#include "config/reload_metrics.h"
#include "metrics/self_metrics.h"
#include "owners/netns_info_table.h"
#include "pipeline/snapshot_store.h"
#include "web/http_server.h"

namespace netif_rx {

class Probe;
class DropProbe;
class NapiProbe;
class RouteReader;
class LinkWatcher;
class BpfStatsControl;
class Poller;
class NetnsAttributor;
struct PrivilegeModel;
class Notifier;
class SnapshotCollector;

class App {
 public:
  // `notifier` (optional, outliving the app) gets STATUS= per startup phase
  // and WATCHDOG=1 after each successful poll when systemd asks for it.
  App(Config config, CliOptions cli, const Notifier* notifier = nullptr);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Loads and attaches the probe, polls once, starts polling and serving.
  // Throws ProbeError, ListenError or std::runtime_error with one clear line.
  void start();
  // Stops serving, then polling, then detaches the probe. Idempotent.
  void stop();

  // Applies a new configuration to the running exporter: poll_interval and
  // per_cpu at once; settings that need the probe reloaded keep their running
  // values (the returned plan lists them). Counts are never reset.
  ReloadPlan reload(const Config& next);
  // netif_rx_exporter_config_last_reload_successful and its timestamp.
  void record_reload(bool ok) { reload_metrics_.record(ok); }
  // Re-reads --web.config.file now (it is also re-read whenever it changes).
  void reload_web_config();

  // What /metrics and /-/ready answer (from the HTTP threads).
  Readiness readiness() const;

 private:
  // namespaces: all with attribution enabled.
  bool attribution_on() const;
  // Loads the drop and NAPI counters (each optional: the kernel may lack
  // them), covers them in `stats_reader`, and wires them into the poller.
  void attach_receive_path_counters(BpfStatsReader& stats_reader);
  // Binds the listeners and serves: /-/healthy at once, the rest once started.
  void start_http(std::vector<ListenAddress> addresses, std::vector<UniqueFd> systemd_sockets);
  // Starts polling (and the attribution), giving up every capability but
  // what the polling and attribution threads keep.
  void start_threads_with_least_privilege(const PrivilegeModel& model);
  // Starts the thread that resolves who owns each namespace. Started before
  // the capabilities are dropped (it keeps one), it waits until
  // `*privileges_settled` before its first scan, and this returns its thread
  // id once it runs; started after (null), it returns 0.
  pid_t start_attribution(std::shared_ptr<const std::atomic<bool>> privileges_settled);

  Config config_;
  CliOptions cli_;
  const Notifier* notifier_;
  // config_.poll_interval for ready(), which runs on the HTTP threads.
  std::atomic<Milliseconds::rep> poll_interval_ms_;
  // The startup step in progress (a static string), nullptr once the probe
  // is attached, the first poll done and the capabilities given up.
  std::atomic<const char*> starting_{"reading the flags"};
  SelfMetrics self_metrics_;
  ReloadMetrics reload_metrics_;
  std::shared_ptr<SnapshotCollector> snapshot_collector_;
  SnapshotStore store_;
  NetnsInfoStore owners_;
  // Torn down in this order by stop() (and declared in its reverse): HTTP
  // first, then the poller (the one thread that changes the probe's maps, the
  // entries of gone devices included), then the link watcher (whose view the
  // poller reads; it only queues the devices it saw go, for the poller), then
  // the probe.
  std::unique_ptr<Probe> probe_;
  // The drop counter (null when the kernel has no drop reasons): read by
  // the poller, detached after it.
  std::unique_ptr<DropProbe> drops_;
  // The NAPI poll counter (null when it could not be loaded): read by the
  // poller, detached after it.
  std::unique_ptr<NapiProbe> napi_;
  // The reader of the probe's queue and steering maps (borrows the probe's
  // descriptors): used by the poller only.
  std::shared_ptr<RouteReader> routes_;
  std::unique_ptr<LinkWatcher> links_;
  // The statistics' descriptor or sampling helper (read by the poller).
  std::unique_ptr<BpfStatsControl> bpf_stats_;
  std::unique_ptr<Poller> poller_;
  // Who owns each namespace (namespaces: all): reads only the snapshots and
  // the node's files; stops before the poller.
  std::unique_ptr<NetnsAttributor> attributor_;
  std::unique_ptr<HttpServer> http_;
};

}  // namespace netif_rx
