#include "pipeline/counting_pipeline.h"

#include <spdlog/spdlog.h>

#include <cerrno>
#include <stdexcept>

#include "devices/link_watcher.h"
#include "devices/netns.h"
#include "metrics/self_metrics.h"
#include "pipeline/poller.h"
#include "pipeline/removed_devices.h"
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
                                         SnapshotStore& store, SelfMetrics& metrics) {
  const auto host_netns = current_netns_inum();
  if (!host_netns) throw std::runtime_error("cannot read /proc/self/ns/net: is /proc mounted?");

  CountingPipeline pipeline;
  pipeline.probe = Probe::load(probe_options_for(config, *host_netns, btf_path));

  MapReader reader(maps_of(*pipeline.probe), pipeline.probe->possible_cpus());

  // Devices of this namespace: names from rtnetlink, map entries deleted as
  // soon as the device is gone. Where the kernel refuses bpf(2) to the
  // watcher's thread (it holds no capability; before 5.19 with
  // kernel.unprivileged_bpf_disabled set), the next poll deletes them, on the
  // polling thread.
  auto removed = std::make_shared<RemovedDevices>();
  LinkWatcherOptions link_options;
  link_options.on_removed = [&metrics, removed, eraser = reader,
                             netns = *host_netns](std::uint32_t ifindex) mutable {
    for (const auto& error : eraser.delete_device({netns, ifindex})) {
      if (error.error == EPERM) {
        removed->push(ifindex);
        return;
      }
      log::warn("deleting the entries of a removed device failed", {{"err", error.describe()}});
      metrics.count_poll_error("map_delete");
    }
  };
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
  LinkWatcher* links = pipeline.links.get();
  pipeline.poller = std::make_unique<Poller>(
      std::move(reader), poller_options, [links] { return links->view(); }, store, metrics);
  pipeline.poller->set_removed_devices(std::move(removed));
  return pipeline;
}

}  // namespace netif_rx
