#include "metrics/netns_info_exposition.h"

#include <prometheus/text_serializer.h>

#include <string>

#include "metrics/data_families.h"
#include "metrics/metric_family.h"
#include "metrics/text_format.h"
#include "pipeline/netns_attribution.h"
#include "probe/netns_salt.h"

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

// The entries to show: per inode number of the snapshot's devices, its
// newest namespace, when the table resolved exactly that one (inode and
// salt). An inode under two salts (a dead namespace's devices not yet
// removed beside the new one's): the new namespace's entry, or none until
// the attribution resolved it; never the dead one's, which would label the
// new namespace's traffic with the dead one's owner (or `unknown`).
std::vector<const NetnsInfoEntry*> shown_entries(const Snapshot& snapshot,
                                                 const NetnsInfoTable& table) {
  std::vector<const NetnsInfoEntry*> shown;
  const auto namespaces = namespaces_of(snapshot);  // sorted by (inode, salt)
  for (std::size_t i = 0; i < namespaces.size();) {
    const std::uint32_t inum = namespaces[i].first;
    std::uint32_t newest = namespaces[i].second;
    for (; i < namespaces.size() && namespaces[i].first == inum; ++i) {
      if (netns_salt_is_newer(namespaces[i].second, newest)) newest = namespaces[i].second;
    }
    if (const NetnsInfoEntry* entry = table.find(inum, newest)) shown.push_back(entry);
  }
  return shown;
}

std::vector<MetricFamily> attribution_families(const AttributionCounts& counts) {
  std::vector<MetricFamily> families;
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

}  // namespace

std::vector<MetricFamily> render_netns_info(const Snapshot& snapshot, const NetnsInfoTable& table) {
  const data_families::Family& name = data_families::kNetnsInfo;
  MetricFamily info =
      metric_family(std::string(name.name), std::string(name.help), MetricType::Gauge);
  for (const NetnsInfoEntry* entry : shown_entries(snapshot, table)) {
    info.metric.push_back(gauge_sample(info_labels(*entry), 1));
  }
  std::vector<MetricFamily> families;
  families.push_back(std::move(info));
  for (auto& family : attribution_families(table.counts)) families.push_back(std::move(family));
  return families;
}

void write_netns_info_text(std::string& out, const Snapshot& snapshot,
                           const NetnsInfoTable& table) {
  const data_families::Family& family = data_families::kNetnsInfo;
  append_family_header(out, family.name, family.help, "gauge");
  for (const NetnsInfoEntry* entry : shown_entries(snapshot, table)) {
    out.append(family.name).push_back('{');
    const char* separator = "";
    for (const auto& label : info_labels(*entry)) {
      out.append(separator);
      append_label(out, label.name, label.value);
      separator = ",";
    }
    out.append("} 1\n");
  }
  out.append(prometheus::TextSerializer().Serialize(attribution_families(table.counts)));
}

}  // namespace netif_rx
