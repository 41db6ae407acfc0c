#include "drops/drop_counting.h"

#include <memory>

#include "drops/drop_reader.h"
#include "drops/drop_series.h"
#include "pipeline/poll_observer.h"
#include "util/log.h"

namespace netif_rx {

std::unique_ptr<DropProbe> attach_drop_counter(const Config& config, std::uint32_t host_netns_inum,
                                               const std::string& btf_path) {
  DropProbeOptions options;
  options.host_netns_inum = host_netns_inum;
  options.count_all_namespaces = config.namespaces == NamespaceMode::all;
  options.btf_path = btf_path;
  std::string why;
  std::unique_ptr<DropProbe> probe = DropProbe::load(options, why);
  if (!probe) {
    log::warn("receive drops are not counted: netif_rx_drops_total is left out", {{"why", why}});
  }
  return probe;
}

DropsSource drops_source(const DropProbe& probe, PollObserver& metrics) {
  auto reader = std::make_shared<DropReader>(
      std::make_unique<KernelBpfMap>("drop_counters", probe.drop_counters_fd()),
      std::make_unique<KernelBpfMap>("drop_device_names", probe.drop_device_names_fd()),
      std::make_unique<KernelBpfMap>("drop_totals", probe.drop_totals_fd()), probe.possible_cpus());
  return [reader, reasons = &probe.reasons(), &metrics](std::size_t budget) {
    const DropCounts counts = reader->read();
    for (const MapAccessError& error : counts.errors) {
      log::warn("reading the drop counter's maps failed", {{"err", error.describe()}});
      metrics.count_poll_error("map_read");
    }
    return build_drops_snapshot(counts, *reasons, budget);
  };
}

}  // namespace netif_rx
