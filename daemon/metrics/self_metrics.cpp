#include "metrics/self_metrics.h"

#include <map>

#include "util/build_info.h"

namespace netif_rx {
namespace {

std::map<std::string, std::string> build_info_label_map() {
  const auto labels = build_info_labels(build_info());
  return {labels.begin(), labels.end()};
}

}  // namespace
SelfMetrics::SelfMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      probe_attached_(prometheus::BuildGauge()
                          .Name("netif_rx_exporter_probe_attached")
                          .Help("1 while the probe is attached and counting, else 0.")
                          .Register(*registry_)
                          .Add({})),
      probe_attach_time_(prometheus::BuildGauge()
                             .Name("netif_rx_exporter_probe_attach_time_seconds")
                             .Help("Unix time when the probe now counting was attached; an "
                                   "exporter that adopted a pinned probe keeps its time.")
                             .Register(*registry_)
                             .Add({})),
      probe_adopted_(prometheus::BuildGauge()
                         .Name("netif_rx_exporter_probe_adopted")
                         .Help("1 when this exporter adopted a pinned probe and went on from its "
                               "counts, 0 when it attached the probe (counts from zero).")
                         .Register(*registry_)
                         .Add({})),
      poll_duration_(
          prometheus::BuildHistogram()
              .Name("netif_rx_exporter_poll_duration_seconds")
              .Help("Time to read the probe's maps and build a snapshot.")
              .Register(*registry_)
              .Add({}, prometheus::Histogram::BucketBoundaries{0.0001, 0.00025, 0.0005, 0.001,
                                                               0.0025, 0.005, 0.01, 0.025, 0.05,
                                                               0.1, 0.25, 0.5, 1})),
      poll_errors_(prometheus::BuildCounter()
                       .Name("netif_rx_exporter_poll_errors_total")
                       .Help("Failed map reads, map deletions or device name resolutions.")
                       .Register(*registry_)),
      last_poll_timestamp_(prometheus::BuildGauge()
                               .Name("netif_rx_exporter_last_poll_timestamp_seconds")
                               .Help("Unix time of the last successful poll.")
                               .Register(*registry_)
                               .Add({})),
      capabilities_retained_(
          prometheus::BuildGauge()
              .Name("netif_rx_exporter_capabilities_retained")
              .Help("1 for a capability a thread keeps after startup: CAP_BPF in the thread "
                    "reading the probe's maps (kernels before 5.19 that refuse bpf(2) to threads "
                    "without CAP_BPF), CAP_SYS_PTRACE in the namespace attribution's thread "
                    "(when given); every other thread holds none.")
              .Register(*registry_)) {
  capabilities_retained_.Add({{"capability", "CAP_BPF"}}).Set(0);
  prometheus::BuildGauge()
      .Name("netif_rx_exporter_build_info")
      .Help("Build identity of netif_rx_exporter; always 1.")
      .Register(*registry_)
      .Add(build_info_label_map())
      .Set(1);
  // Known reasons exist from the start, so rate() sees their first increment.
  for (const char* reason : {"map_read", "map_delete", "name_resolution"}) {
    poll_errors_.Add({{"reason", reason}});
  }
}

void SelfMetrics::count_poll_error(const std::string& reason) {
  poll_errors_.Add({{"reason", reason}}).Increment();
}

}  // namespace netif_rx
