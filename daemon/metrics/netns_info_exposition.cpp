#include "metrics/netns_info_exposition.h"

#include <string>

#include "metrics/metric_family.h"
#include "pipeline/netns_attribution.h"

namespace netif_rx {
namespace {

using prometheus::MetricFamily;
using prometheus::MetricType;

// Labels in alphabetical order, empty ones left out.
MetricLabels info_labels(const NetnsInfoEntry& entry) {
  const NetnsOwner& owner = entry.owner;
  MetricLabels labels;
  const auto add = [&labels](const char* name, const std::string& value) {
    if (!value.empty()) labels.push_back({name, value});
  };
  add("container", owner.container);
  add("kind", std::string(to_string(owner.kind)));
  add("namespace", owner.namespace_name);
  add("netns", std::to_string(entry.inum));
  add("netns_name", owner.netns_name);
  add("pod", owner.pod);
  add("pod_uid", owner.pod_uid);
  return labels;
}

}  // namespace

std::vector<MetricFamily> render_netns_info(const Snapshot& snapshot, const NetnsInfoTable& table) {
  MetricFamily info = metric_family(
      "netif_rx_netns_info",
      "Who owns a network namespace, from the node's own files (kind: host, pod, container, "
      "named, ambiguous, unknown); join on netns with group_left.",
      MetricType::Gauge);
  std::uint32_t last_inum = 0;
  for (const auto& [inum, salt] : namespaces_of(snapshot)) {
    // One inode under two salts (a dead namespace's device not yet removed
    // beside the new one's): one series per netns label, the first's.
    if (inum == last_inum) continue;
    if (const NetnsInfoEntry* entry = table.find(inum, salt)) {
      info.metric.push_back(gauge_sample(info_labels(*entry), 1));
      last_inum = inum;
    }
  }

  const AttributionCounts& counts = table.counts;
  std::vector<MetricFamily> families;
  families.push_back(std::move(info));
  families.push_back(single_sample_family(
      "netif_rx_exporter_netns_attribution_scans_total",
      "Scans of the node's files that resolve who owns each network namespace.",
      MetricType::Counter, static_cast<double>(counts.scans)));
  families.push_back(
      single_sample_family("netif_rx_exporter_netns_attribution_scan_duration_seconds",
                           "How long the last scan of the node's files took.", MetricType::Gauge,
                           counts.last_scan_seconds));
  families.push_back(single_sample_family(
      "netif_rx_exporter_netns_attribution_unreadable_processes",
      "Processes whose network namespace the last scan could not read (no permission: "
      "CAP_SYS_PTRACE, or gone).",
      MetricType::Gauge, static_cast<double>(counts.unreadable_processes)));
  MetricFamily dropped = metric_family(
      "netif_rx_exporter_netns_attribution_dropped_total",
      "What the attribution's bounds left out, by what: namespaces (without an info series), "
      "processes, bundles, pods (log folders); counted at each scan.",
      MetricType::Counter);
  dropped.metric.push_back(counter_sample({{"what", "bundles"}}, counts.dropped_bundles));
  dropped.metric.push_back(counter_sample({{"what", "namespaces"}}, counts.dropped_namespaces));
  dropped.metric.push_back(counter_sample({{"what", "pods"}}, counts.dropped_pods));
  dropped.metric.push_back(counter_sample({{"what", "processes"}}, counts.dropped_processes));
  families.push_back(std::move(dropped));
  return families;
}

}  // namespace netif_rx
