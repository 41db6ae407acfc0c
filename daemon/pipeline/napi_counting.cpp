#include "pipeline/napi_counting.h"

#include "napi/napi_reader.h"
#include "napi/napi_series.h"
#include "pipeline/poll_observer.h"
#include "util/log.h"

namespace netif_rx {

std::unique_ptr<NapiProbe> attach_napi_counter(const Config& config, std::uint32_t host_netns_inum,
                                               const std::string& btf_path) {
  NapiProbeOptions options;
  options.host_netns_inum = host_netns_inum;
  options.count_all_namespaces = config.namespaces == NamespaceMode::all;
  options.btf_path = btf_path;
  std::string why;
  std::unique_ptr<NapiProbe> probe = NapiProbe::load(options, why);
  if (!probe) {
    log::warn(
        "NAPI polls are not counted: netif_rx_napi_* and netif_rx_backlog_polls_total are "
        "left out",
        {{"why", why}});
  }
  return probe;
}

NapiSource napi_source(const NapiProbe& probe, PollObserver& metrics) {
  auto reader = std::make_shared<NapiReader>(
      std::make_unique<KernelBpfMap>("napi_counters", probe.napi_counters_fd()),
      std::make_unique<KernelBpfMap>("napi_totals", probe.napi_totals_fd()), probe.possible_cpus());
  return [reader, &metrics](std::size_t budget, const PerCpuDeviceLabels& labels) {
    const NapiCounts counts = reader->read();
    for (const MapAccessError& error : counts.errors) {
      log::warn("reading the NAPI poll counter's maps failed", {{"err", error.describe()}});
      metrics.count_poll_error("map_read");
    }
    NapiSnapshot napi = build_napi_snapshot(counts, labels, budget);
    napi.counter_entries = counts.entries.size();
    return napi;
  };
}

}  // namespace netif_rx
