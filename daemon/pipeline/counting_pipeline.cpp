#include "pipeline/counting_pipeline.h"

#include <spdlog/spdlog.h>

#include <cerrno>
#include <stdexcept>

#include "devices/link_watcher.h"
#include "devices/netns.h"
#include "pipeline/poll_observer.h"
#include "pipeline/poller.h"
#include "probe/map_reader.h"
#include "probe/probe.h"
#include "probe/probe_maps.h"
#include "util/log.h"

namespace netif_rx {

CountingPipeline::CountingPipeline() = default;
CountingPipeline::CountingPipeline(CountingPipeline&&) noexcept = default;
CountingPipeline& CountingPipeline::operator=(CountingPipeline&&) noexcept = default;
CountingPipeline::~CountingPipeline() {
  poller.reset();
  links.reset();
  probe.reset();
}

CountingPipeline build_counting_pipeline(const Config& config, const std::string& btf_path,
                                         SnapshotStore& store, PollObserver& metrics,
                                         const PinOptions& pins) {
  const auto host_netns = current_netns_inum();
  if (!host_netns) throw std::runtime_error("cannot read /proc/self/ns/net: is /proc mounted?");

  CountingPipeline pipeline;
  ProbeOptions probe_options = probe_options_for(config, *host_netns, btf_path);
  probe_options.pin_path = pins.path;
  probe_options.fd_store = pins.fd_store;
  pipeline.probe = Probe::load(probe_options);

  const ProbeMaps maps = maps_of(*pipeline.probe);
  MapReader reader(maps, pipeline.probe->possible_cpus());
  CarriedDevices carried;
  for (const auto& error : carried.load(maps, pipeline.probe->possible_cpus()))
    log::warn("reading the carried counts failed: they are not shown", {{"err", error.describe()}});
  if (carried.devices() > 0) {
    log::info("devices with counts carried over from a probe of another layout",
              {{"devices", std::to_string(carried.devices())}});
  }

  // Devices of this namespace: names from rtnetlink; a device gone is queued
  // to the poller, the one thread that changes the maps (also the one that
  // may use bpf(2) where the kernel refuses it to the watcher's thread: before
  // 5.19 with kernel.unprivileged_bpf_disabled set).
  auto removals = std::make_shared<RemovalQueue>();
  LinkWatcherOptions link_options;
  link_options.on_removed = [removals](std::uint32_t ifindex) { removals->push(ifindex); };
  link_options.on_error = [&metrics](const std::string& message) {
    log::warn("resolving device names failed", {{"err", message}});
    metrics.count_poll_error("name_resolution");
  };
  pipeline.links = std::make_unique<LinkWatcher>(std::move(link_options));

  PollerOptions poller_options;
  poller_options.interval = config.poll_interval;
  poller_options.namespaces = config.namespaces;
  poller_options.host_netns_inum = *host_netns;
  poller_options.max_devices = config.max_devices;
  poller_options.stale_after = config.stale_after;
  poller_options.devices = config.devices;
  poller_options.per_cpu = config.per_cpu;
  poller_options.max_series = config.max_series;
  LinkWatcher* links = pipeline.links.get();
  pipeline.poller = std::make_unique<Poller>(
      std::move(reader), poller_options, [links] { return links->view(); }, store, metrics,
      std::move(removals));
  pipeline.poller->set_carried(std::move(carried));
  return pipeline;
}

}  // namespace netif_rx
