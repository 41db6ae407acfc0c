#include "app/app.h"

#include <linux/capability.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>

#include "app/memory_budget.h"
#include "app/notify.h"
#include "app/privilege_model.h"
#include "bpf_stats/bpf_stats.h"
#include "bpf_stats/bpf_stats_control.h"
#include "devices/link_watcher.h"
#include "devices/netns.h"
#include "metrics/process_metrics.h"
#include "metrics/snapshot_collector.h"
#include "owners/node_scan.h"
#include "pipeline/counting_pipeline.h"
#include "pipeline/drop_counting.h"
#include "pipeline/napi_counting.h"
#include "pipeline/netns_attributor.h"
#include "pipeline/poller.h"
#include "pipeline/route_counting.h"
#include "probe/netns_salt.h"
#include "probe/probe.h"
#include "sys/privileges.h"
#include "util/log.h"
#include "web/http_server.h"
#include "web/systemd_socket.h"

namespace netif_rx {

namespace {

// A startup step, for systemd's STATUS= and for what /metrics and /-/ready
// answer until startup is done.
void step(const Notifier* notifier, std::atomic<const char*>& starting, const char* text) {
  starting = text;
  if (notifier) notifier->status(text);
}

// Starts the polling thread, then gives up every capability in every thread
// but the polling thread's `model.kept` and the threads of `also_kept`. The
// polling thread names itself and reports its id first.
void start_polling_with_least_privilege(Poller& poller, const PrivilegeModel& model,
                                        std::vector<KeptCapabilities> also_kept) {
  auto started = std::make_shared<std::promise<pid_t>>();
  std::future<pid_t> poll_thread = started->get_future();
  poller.set_on_thread_start([started] {
    ::prctl(PR_SET_NAME, "netif_rx_poll");
    try {
      started->set_value(static_cast<pid_t>(::syscall(SYS_gettid)));
    } catch (const std::future_error&) {
      // A second start: the first one was reported.
    }
  });
  poller.start();
  if (model.kept) {
    if (poll_thread.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
      throw std::runtime_error("the polling thread did not start within 5s");
    }
    also_kept.push_back(KeptCapabilities{poll_thread.get(), 1ULL << *model.kept});
  }
  drop_all_capabilities(also_kept);
}

}  // namespace

App::App(Config config, CliOptions cli, const Notifier* notifier)
    : config_(std::move(config)),
      cli_(std::move(cli)),
      notifier_(notifier),
      poll_interval_ms_(config_.poll_interval.count()) {}

App::~App() { stop(); }

void App::start() {
  // Flags are checked before anything is loaded.
  std::vector<ListenAddress> addresses;
  std::vector<UniqueFd> systemd_sockets;
  if (cli_.systemd_socket) {
    systemd_sockets = take_systemd_sockets();
  } else {
    for (const auto& text : cli_.listen_addresses) addresses.push_back(parse_listen_address(text));
  }

  // The maps this configuration asks for, and the exporter, under the memory
  // cgroup's limit: else a one-line refusal now, not an OOM kill in a loop.
  refuse_unless_memory_fits(config_);

  // First, while the process still has one thread and all its capabilities:
  // enable statistics (always) or fork the helper that samples them.
  bpf_stats_ = std::make_unique<BpfStatsControl>(config_.bpf_stats);

  // Then HTTP: /-/healthy answers from now on, /metrics and /-/ready say
  // 503 and the step until startup is done.
  step(notifier_, starting_, "starting the HTTP listeners");
  start_http(std::move(addresses), std::move(systemd_sockets));

  step(notifier_, starting_, "loading and attaching the probe");
  CountingPipeline pipeline = build_counting_pipeline(config_, cli_.btf_path, store_, self_metrics_,
                                                      PinOptions{cli_.pin_path, cli_.fd_store});
  probe_ = std::move(pipeline.probe);
  links_ = std::move(pipeline.links);
  poller_ = std::move(pipeline.poller);
  self_metrics_.set_probe_attached(true);
  self_metrics_.set_probe_attach_time(probe_->attach_time_seconds());
  self_metrics_.set_probe_adopted(probe_->adopted());
  auto stats_reader = std::make_shared<BpfStatsReader>(
      probe_->program_fd(), probe_->program_name(), probe_->attach_mode(),
      std::vector<BpfMapHandle>{{"device_counters", probe_->device_counters_fd()},
                                {"device_names", probe_->device_names_fd()},
                                {"probe_totals", probe_->probe_totals_fd()},
                                {"host_counters", probe_->host_counters_fd()},
                                {"netns_table", probe_->netns_table_fd()},
                                {"netns_slots", probe_->netns_slots_fd()}},
      [control = bpf_stats_.get()] { return control->exporter_enabled(); });
  attach_receive_path_counters(*stats_reader);
  poller_->set_bpf_stats_source(
      [reader = std::move(stats_reader)](std::size_t device_entries,
                                         const HashMapEntries& other_entries) {
        return reader->read(device_entries, other_entries);
      });
  if (notifier_ && notifier_->watchdog()) {
    const Notifier* notifier = notifier_;
    poller_->set_after_success([notifier] { notifier->watchdog_ping(); });
    const auto half = std::chrono::duration_cast<Milliseconds>(*notifier_->watchdog() / 2);
    if (config_.poll_interval > half) {
      log::warn(
          "poll_interval is longer than half the systemd watchdog interval: the service "
          "manager will restart the exporter; lower poll_interval or raise WatchdogSec",
          {{"poll_interval", config_.poll_interval}, {"watchdog_interval", half * 2}});
    }
  }
  step(notifier_, starting_, "first poll");
  if (!poller_->poll_once()) log::warn("the first poll failed; serving what it could read");

  // What the polling thread keeps, decided before any other thread starts.
  const PrivilegeModel model = decide_privilege_model(probe_->device_counters_fd());

  // Everything privileged is done: the probe is attached, statistics are
  // held or delegated to the helper, the listeners are bound.
  step(notifier_, starting_, "dropping privileges");
  start_threads_with_least_privilege(model);
  starting_ = nullptr;
  log::debug("capabilities of the main thread", {{"capabilities", describe_capabilities()}});
  log::info("netif_rx_exporter is ready", {{"poll_interval", config_.poll_interval},
                                           {"per_cpu", to_string(config_.per_cpu.devices)},
                                           {"max_series", config_.max_series},
                                           {"namespaces", to_string(config_.namespaces)}});
}

bool App::attribution_on() const {
  return config_.namespaces == NamespaceMode::all && config_.attribution.enabled;
}

void App::start_http(std::vector<ListenAddress> addresses, std::vector<UniqueFd> systemd_sockets) {
  HttpOptions http_options;
  http_options.addresses = std::move(addresses);
  http_options.systemd_sockets = std::move(systemd_sockets);
  http_options.telemetry_path = cli_.telemetry_path;
  http_options.readiness = [this] { return readiness(); };
  http_options.web_config_file = cli_.web_config_file;
  RenderOptions render{config_.per_cpu.devices == PerCpuDevices::all,
                       config_.namespaces == NamespaceMode::all,
                       attribution_on() && config_.attribution.copy_labels};
  snapshot_collector_ =
      std::make_shared<SnapshotCollector>(store_, render, attribution_on() ? &owners_ : nullptr);
  reload_metrics_.record(true);
  http_ = std::make_unique<HttpServer>(
      std::move(http_options), std::vector<std::shared_ptr<prometheus::Collectable>>{
                                   self_metrics_.registry(), reload_metrics_.registry(),
                                   snapshot_collector_, std::make_shared<ProcessCollector>()});
}

void App::start_threads_with_least_privilege(const PrivilegeModel& model) {
  const bool attribution = attribution_on();
  // From here no thread holds a capability, but the polling thread where the
  // kernel refuses map reads without one (see privilege_model.h) and the
  // attribution's thread, which keeps CAP_SYS_PTRACE, alone, when the process
  // has it and scans processes (other users' /proc/<pid>/ns/net need it): it
  // is started before the drop for that, and scans only once the drop is
  // over (done, or failed and the process on its way out). Else it starts
  // after the drop and holds nothing (what it can't read counts as
  // unreadable).
  const bool keep_ptrace =
      attribution && config_.attribution.processes && has_permitted(CAP_SYS_PTRACE);
  std::vector<KeptCapabilities> also_kept;
  const auto privileges_settled = std::make_shared<std::atomic<bool>>(false);
  struct SettleOnExit {  // at the end, also when the drop throws
    std::atomic<bool>& settled;
    ~SettleOnExit() { settled = true; }
  } settle_on_exit{*privileges_settled};
  if (keep_ptrace) {
    also_kept.push_back({start_attribution(privileges_settled), 1ULL << CAP_SYS_PTRACE});
  }
  start_polling_with_least_privilege(*poller_, model, also_kept);
  if (attribution && !keep_ptrace) start_attribution(nullptr);
  if (keep_ptrace) self_metrics_.set_capability_retained("CAP_SYS_PTRACE");
  if (model.kept) self_metrics_.set_capability_retained(capability_name(*model.kept));
  log::info("privileges", {{"kept", model.kept ? capability_name(*model.kept) : "none"},
                           {"thread", model.kept ? "netif_rx_poll" : "none"},
                           {"why", model.reason}});
}

pid_t App::start_attribution(std::shared_ptr<const std::atomic<bool>> privileges_settled) {
  const bool report_thread = privileges_settled != nullptr;
  const auto host_netns = current_netns_inum();
  AttributorOptions options;
  options.check_interval = std::min(config_.poll_interval, Milliseconds(1000));
  options.refresh_interval = config_.attribution.refresh_interval;
  options.max_namespaces = config_.attribution.max_namespaces;
  options.salt_is_netns_id =
      netns_salt_support(cli_.btf_path).kind == NetnsSaltSupport::Kind::net_cookie;
  attributor_ = std::make_unique<NetnsAttributor>(
      store_, owners_,
      [sources = config_.attribution, host = host_netns.value_or(0),
       cache = std::make_shared<BundleCache>()] { return scan_node(sources, host, *cache); },
      options);
  auto started = std::make_shared<std::promise<pid_t>>();
  std::future<pid_t> thread = started->get_future();
  attributor_->start([started, privileges_settled = std::move(privileges_settled)] {
    ::prctl(PR_SET_NAME, "netif_rx_owners");
    started->set_value(static_cast<pid_t>(::syscall(SYS_gettid)));
    // No file of the node is read while this thread holds more than it keeps.
    // A sleep, not a futex wait: the drop reaches this thread by a signal,
    // which sanitizer runtimes deliver only in calls they intercept.
    while (privileges_settled && !*privileges_settled)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  log::info("namespace attribution started",
            {{"refresh_interval", config_.attribution.refresh_interval},
             {"processes", config_.attribution.processes},
             {"copy_labels", config_.attribution.copy_labels},
             {"kept", report_thread ? "CAP_SYS_PTRACE" : "none"},
             {"thread", "netif_rx_owners"}});
  if (!report_thread) return 0;
  if (thread.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    throw std::runtime_error("the attribution thread did not start within 5s");
  }
  return thread.get();
}

void App::attach_receive_path_counters(BpfStatsReader& stats_reader) {
  drops_ = attach_drop_counter(config_, probe_->host_netns_inum(), cli_.btf_path);
  if (drops_) {
    stats_reader.add_program(drops_->program_fd(), drops_->program_name(), AttachMode::tp_btf);
    stats_reader.add_map({"drop_counters", drops_->drop_counters_fd()});
    stats_reader.add_map({"drop_device_names", drops_->drop_device_names_fd()});
    stats_reader.add_map({"drop_totals", drops_->drop_totals_fd()});
  }
  poller_->set_drops_source(drops_source(drops_.get(), self_metrics_));
  napi_ = attach_napi_counter(config_, probe_->host_netns_inum(), cli_.btf_path);
  if (napi_) {
    stats_reader.add_program(napi_->program_fd(), napi_->program_name(), AttachMode::tp_btf);
    stats_reader.add_map({"napi_counters", napi_->napi_counters_fd()});
    stats_reader.add_map({"napi_totals", napi_->napi_totals_fd()});
    poller_->set_napi_source(napi_source(*napi_, self_metrics_));
  }
  routes_ = route_reader_of(*probe_);
  for (const auto& [name, fd] : {std::pair{"queue_slots", probe_->queue_slots_fd()},
                                 std::pair{"queue_counters", probe_->queue_counters_fd()},
                                 std::pair{"steer_counters", probe_->steer_counters_fd()},
                                 std::pair{"route_totals", probe_->route_totals_fd()}}) {
    stats_reader.add_map({name, fd});
  }
  poller_->set_route_source(route_source(routes_, steering_counted(cli_.btf_path), self_metrics_));
  poller_->set_forgotten_devices_sink(
      [drops = drops_.get(), napi = napi_.get(), routes = routes_,
       &metrics = self_metrics_](const std::vector<netif_rx_device_key>& keys) {
        if (drops) drops->forget_devices(keys);
        if (napi) napi->forget_devices(keys);
        for (const MapAccessError& error : routes->forget_devices(keys)) {
          log::warn("deleting a forgotten device's queue and steering counts failed",
                    {{"err", error.describe()}});
          metrics.count_poll_error("map_delete");
        }
      });
}

void App::stop() {
  if (http_) {
    http_.reset();
    log::debug("HTTP server stopped");
  }
  if (attributor_) {
    attributor_->stop();
    attributor_.reset();
  }
  if (poller_) {
    poller_->stop();
    poller_.reset();
    log::debug("poller stopped");
  }
  if (links_) {
    links_.reset();
    log::debug("link watcher stopped");
  }
  bpf_stats_.reset();
  drops_.reset();
  napi_.reset();
  routes_.reset();
  if (probe_) {
    self_metrics_.set_probe_attached(false);
    probe_.reset();
    log::debug("probe detached");
  }
}

ReloadPlan App::reload(const Config& next) {
  ReloadPlan plan = plan_reload(config_, next);
  for (const auto& line : plan.needs_restart) log::warn("configuration reload", {{"detail", line}});
  if (poller_ && plan.config.poll_interval != config_.poll_interval) {
    poller_->set_interval(plan.config.poll_interval);
  }
  if (poller_) {
    poller_->set_devices(plan.config.devices, plan.config.stale_after, plan.config.per_cpu,
                         plan.config.max_series);
  }
  if (snapshot_collector_) {
    snapshot_collector_->set_options(RenderOptions{
        plan.config.per_cpu.devices == PerCpuDevices::all,
        plan.config.namespaces == NamespaceMode::all, snapshot_collector_->options().owner_labels});
  }
  config_ = plan.config;
  poll_interval_ms_ = config_.poll_interval.count();
  log::info("configuration reloaded", {{"poll_interval", config_.poll_interval},
                                       {"per_cpu", to_string(config_.per_cpu.devices)},
                                       {"max_series", config_.max_series}});
  return plan;
}

void App::reload_web_config() {
  if (http_) http_->reload_web_config();
}

Readiness App::readiness() const {
  // probe_ and poller_ are set before starting_ becomes nullptr and stay
  // until stop(), which stops HTTP first.
  if (const char* step = starting_.load()) return {step, false};
  const auto last = poller_->last_success();
  // Fresh: within three poll intervals (and never before the first poll).
  return {{},
          last.time_since_epoch().count() != 0 &&
              std::chrono::steady_clock::now() - last <
                  3 * Milliseconds(poll_interval_ms_.load()) + std::chrono::seconds(1)};
}

}  // namespace netif_rx
