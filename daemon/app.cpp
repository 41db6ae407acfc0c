#include "app.h"

#include <spdlog/spdlog.h>

#include <stdexcept>

#include "bpf_stats.h"
#include "bpf_stats_control.h"
#include "counting_pipeline.h"
#include "http_server.h"
#include "link_watcher.h"
#include "poller.h"
#include "privileges.h"
#include "probe.h"
#include "snapshot_collector.h"

namespace netif_rx {

App::App(Config config, CliOptions cli) : config_(std::move(config)), cli_(std::move(cli)) {}

App::~App() { stop(); }

void App::start() {
  // Flags are checked before anything is loaded.
  std::vector<ListenAddress> addresses;
  for (const auto& text : cli_.listen_addresses) addresses.push_back(parse_listen_address(text));

  // First, while the process still has one thread and all its capabilities:
  // enable statistics (always) or fork the helper that samples them.
  bpf_stats_ = std::make_unique<BpfStatsControl>(config_.bpf_stats);

  CountingPipeline pipeline =
      build_counting_pipeline(config_, cli_.btf_path, store_, self_metrics_);
  probe_ = std::move(pipeline.probe);
  links_ = std::move(pipeline.links);
  poller_ = std::move(pipeline.poller);
  self_metrics_.set_probe_attached(true);
  poller_->set_bpf_stats_source(
      [reader = std::make_shared<BpfStatsReader>(
           probe_->program_fd(), probe_->program_name(), probe_->attach_type(),
           std::vector<BpfMapHandle>{{"device_counters", probe_->device_counters_fd()},
                                     {"device_names", probe_->device_names_fd()},
                                     {"untracked_counters", probe_->untracked_counters_fd()}},
           [control = bpf_stats_.get()] { return control->exporter_enabled(); })](
          std::size_t device_entries) { return reader->read(device_entries); });
  if (!poller_->poll_once()) spdlog::warn("the first poll failed; serving what it could read");

  HttpOptions http_options;
  http_options.addresses = std::move(addresses);
  http_options.telemetry_path = cli_.telemetry_path;
  http_options.ready = [this] { return ready(); };
  RenderOptions render{config_.per_cpu, config_.namespaces == NamespaceMode::all};
  http_ = std::make_unique<HttpServer>(
      std::move(http_options),
      std::vector<std::shared_ptr<prometheus::Collectable>>{
          self_metrics_.registry(), std::make_shared<SnapshotCollector>(store_, render)});
  poller_->start();
  // Everything privileged is done: the probe is attached, statistics are
  // held or delegated to the helper, the listeners are bound. From here the
  // process that serves HTTP holds no capability at all, in any thread.
  drop_all_capabilities();
  spdlog::debug("capabilities dropped: {}", describe_capabilities());
  spdlog::info("netif_rx_exporter is ready (poll_interval={}, per_cpu={}, namespaces={})",
               format_duration(config_.poll_interval), config_.per_cpu,
               to_string(config_.namespaces));
}

void App::stop() {
  if (http_) {
    http_.reset();
    spdlog::debug("HTTP server stopped");
  }
  if (poller_) {
    poller_->stop();
    poller_.reset();
    spdlog::debug("poller stopped");
  }
  if (links_) {
    links_.reset();
    spdlog::debug("link watcher stopped");
  }
  bpf_stats_.reset();
  if (probe_) {
    self_metrics_.set_probe_attached(false);
    probe_.reset();
    spdlog::debug("probe detached");
  }
}

bool App::ready() const {
  if (!probe_ || !poller_) return false;
  const auto last = poller_->last_success();
  // Fresh: within three poll intervals (and never before the first poll).
  return last.time_since_epoch().count() != 0 &&
         std::chrono::steady_clock::now() - last <
             3 * config_.poll_interval + std::chrono::seconds(1);
}

int App::bpf_stats_helper_pid() const { return bpf_stats_ ? bpf_stats_->helper_pid() : -1; }

std::vector<int> App::listening_ports() const {
  return http_ ? http_->listening_ports() : std::vector<int>{};
}

}  // namespace netif_rx
