#include "app.h"

#include <spdlog/spdlog.h>

#include <stdexcept>

#include "http_server.h"
#include "link_watcher.h"
#include "map_reader.h"
#include "netns.h"
#include "poller.h"
#include "probe.h"
#include "snapshot_collector.h"

namespace netif_rx {

App::App(Config config, CliOptions cli) : config_(std::move(config)), cli_(std::move(cli)) {}

App::~App() { stop(); }

void App::start() {
  // Flags are checked before anything is loaded.
  std::vector<ListenAddress> addresses;
  for (const auto& text : cli_.listen_addresses) addresses.push_back(parse_listen_address(text));

  const auto host_netns = current_netns_inum();
  if (!host_netns) throw std::runtime_error("cannot read /proc/self/ns/net: is /proc mounted?");

  ProbeOptions probe_options;
  probe_options.host_netns_inum = *host_netns;
  probe_options.count_all_namespaces = config_.namespaces == NamespaceMode::all;
  probe_options.max_devices = config_.max_devices;
  probe_options.attach = config_.attach;
  probe_options.btf_path = cli_.btf_path;
  probe_ = Probe::load(probe_options);
  self_metrics_.set_probe_attached(true);

  MapReader reader(probe_->device_counters_fd(), probe_->device_names_fd(),
                   probe_->untracked_counters_fd(), probe_->possible_cpus());

  // Devices of this namespace: names from rtnetlink, map entries deleted as
  // soon as the device is gone.
  LinkWatcherOptions link_options;
  link_options.on_removed = [this, eraser = reader,
                             netns = *host_netns](std::uint32_t ifindex) mutable {
    for (const auto& error : eraser.delete_device({netns, ifindex})) {
      spdlog::warn("deleting the entries of a removed device: {}", error.describe());
      self_metrics_.count_poll_error("map_delete");
    }
  };
  link_options.on_error = [this](const std::string& message) {
    spdlog::warn("device names: {}", message);
    self_metrics_.count_poll_error("name_resolution");
  };
  links_ = std::make_unique<LinkWatcher>(std::move(link_options));

  PollerOptions poller_options;
  poller_options.interval = config_.poll_interval;
  poller_options.namespaces = config_.namespaces;
  poller_options.host_netns_inum = *host_netns;
  poller_options.max_devices = config_.max_devices;
  poller_options.stale_after = config_.stale_after;
  poller_options.devices = config_.devices;
  poller_ = std::make_unique<Poller>(
      std::move(reader), poller_options, [this] { return links_->view(); }, store_, self_metrics_);
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

std::vector<int> App::listening_ports() const {
  return http_ ? http_->listening_ports() : std::vector<int>{};
}

}  // namespace netif_rx
