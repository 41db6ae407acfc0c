#include "metrics/exposition.h"

#include <string>

#include "metrics/data_families.h"
#include "metrics/metric_family.h"

namespace netif_rx {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

MetricFamily counter_family(const data_families::Family& family) {
  return metric_family(std::string(family.name), std::string(family.help), MetricType::Counter);
}

// Labels in a fixed order: cpu, device, namespace, netns, pod (alphabetical,
// as Prometheus client libraries write them); `owner` only with owner_labels,
// its empty values left out.
std::vector<ClientMetric::Label> labels(const std::string* cpu, const std::string* device,
                                        const std::string* netns,
                                        const NetnsOwner* owner = nullptr) {
  std::vector<ClientMetric::Label> out;
  out.reserve(5);
  if (cpu) out.push_back({"cpu", *cpu});
  if (device) out.push_back({"device", *device});
  if (owner && !owner->namespace_name.empty()) out.push_back({"namespace", owner->namespace_name});
  if (netns) out.push_back({"netns", *netns});
  if (owner && !owner->pod.empty()) out.push_back({"pod", owner->pod});
  return out;
}

// A counter by CPU (or summed), from one per-CPU vector, with `extra`
// labels before the cpu label's place.
template <typename PerCpu, typename ValueOf>
void add_by_cpu(MetricFamily& family, const std::vector<PerCpu>& per_cpu, ValueOf value_of,
                const std::vector<unsigned>& cpus, const std::vector<std::string>& cpu_names,
                const RenderOptions& options, const std::vector<ClientMetric::Label>& extra = {}) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    const std::uint64_t value = cpus[i] < per_cpu.size() ? value_of(per_cpu[cpus[i]]) : 0;
    if (options.totals_per_cpu) {
      auto with_cpu = labels(&cpu_names[i], nullptr, nullptr);
      with_cpu.insert(with_cpu.end(), extra.begin(), extra.end());
      family.metric.push_back(counter_sample(std::move(with_cpu), value));
    }
    sum += value;
  }
  if (!options.totals_per_cpu) family.metric.push_back(counter_sample(extra, sum));
}

// A packets counter by CPU (or summed), from one per-CPU vector.
MetricFamily packets_by_cpu(const data_families::Family& what,
                            const std::vector<netif_rx_counters>& per_cpu,
                            const std::vector<unsigned>& cpus,
                            const std::vector<std::string>& cpu_names,
                            const RenderOptions& options) {
  MetricFamily family = counter_family(what);
  add_by_cpu(
      family, per_cpu, [](const netif_rx_counters& c) { return netif_rx_packets(&c); }, cpus,
      cpu_names, options);
  return family;
}

// netif_rx_gso_fallbacks_total{cpu, reason}: labels in alphabetical order.
MetricFamily gso_fallbacks(const std::vector<GsoFallbacks>& fallbacks,
                           const std::vector<unsigned>& cpus,
                           const std::vector<std::string>& cpu_names,
                           const RenderOptions& options) {
  MetricFamily family = counter_family(data_families::kGsoFallbacks);
  for (const GsoFallbacks& reason : fallbacks) {
    add_by_cpu(family, reason.skbs_per_cpu, [](std::uint64_t skbs) { return skbs; }, cpus,
               cpu_names, options, {{"reason", reason.reason}});
  }
  return family;
}

// The device families: packets, skbs, bytes and the busiest CPU's packets.
struct DeviceFamilies {
  MetricFamily packets = counter_family(data_families::kPackets);
  MetricFamily skbs = counter_family(data_families::kSkbs);
  MetricFamily bytes = counter_family(data_families::kBytes);
  MetricFamily busiest = counter_family(data_families::kBusiest);

  void reserve(std::size_t series) {
    packets.metric.reserve(series);
    skbs.metric.reserve(series);
    bytes.metric.reserve(series);
  }
  void add(const std::vector<ClientMetric::Label>& series_labels, const netif_rx_counters& value) {
    packets.metric.push_back(counter_sample(series_labels, netif_rx_packets(&value)));
    skbs.metric.push_back(counter_sample(series_labels, value.skbs));
    bytes.metric.push_back(counter_sample(series_labels, value.bytes));
  }
};

}  // namespace

netif_rx_counters summed_over(const std::vector<netif_rx_counters>& per_cpu,
                              const std::vector<unsigned>& cpus) {
  netif_rx_counters sum{};
  for (unsigned cpu : cpus) {
    if (cpu >= per_cpu.size()) continue;
    sum.skbs += per_cpu[cpu].skbs;
    sum.merged_packets += per_cpu[cpu].merged_packets;
    sum.bytes += per_cpu[cpu].bytes;
  }
  return sum;
}

std::vector<MetricFamily> render_snapshot(const Snapshot& snapshot, const RenderOptions& options,
                                          const NetnsInfoTable* owners) {
  DeviceFamilies devices;

  std::vector<std::string> cpu_names;
  cpu_names.reserve(snapshot.cpus.size());
  for (unsigned cpu : snapshot.cpus) cpu_names.push_back(std::to_string(cpu));

  devices.reserve(snapshot.devices.size());
  devices.busiest.metric.reserve(snapshot.devices.size() + 1);

  for (const DeviceSeries& device : snapshot.devices) {
    const std::string netns = std::to_string(device.key.netns_inum);
    const std::string* netns_label = options.netns_label ? &netns : nullptr;
    const NetnsInfoEntry* entry = options.netns_label && options.owner_labels && owners
                                      ? owners->find(device.key.netns_inum, device.key.netns_salt)
                                      : nullptr;
    const NetnsOwner* owner = entry ? &entry->owner : nullptr;
    if (device.per_cpu_detail) {
      // A CPU's series from its first packet on: the counts only grow.
      for (std::size_t i = 0; i < snapshot.cpus.size(); ++i) {
        const unsigned cpu = snapshot.cpus[i];
        if (cpu >= device.per_cpu.size()) continue;
        const netif_rx_counters& value = device.per_cpu[cpu];
        if (value.skbs == 0 && value.merged_packets == 0 && value.bytes == 0) continue;
        devices.add(labels(&cpu_names[i], &device.name, netns_label, owner), value);
      }
    } else {
      devices.add(labels(nullptr, &device.name, netns_label, owner),
                  summed_over(device.per_cpu, snapshot.cpus));
    }
    devices.busiest.metric.push_back(
        counter_sample(labels(nullptr, &device.name, netns_label, owner), device.busiest_packets));
  }
  if (snapshot.folded.devices != 0) {
    const std::string folded(data_families::kFoldedDevice);
    const auto folded_labels = labels(nullptr, &folded, nullptr);
    devices.add(folded_labels, summed_over(snapshot.folded.per_cpu, snapshot.cpus));
    devices.busiest.metric.push_back(
        counter_sample(folded_labels, snapshot.folded.busiest_packets));
  }

  std::vector<MetricFamily> families;
  families.push_back(std::move(devices.packets));
  families.push_back(std::move(devices.skbs));
  families.push_back(std::move(devices.bytes));
  families.push_back(std::move(devices.busiest));
  families.push_back(packets_by_cpu(data_families::kUntracked, snapshot.untracked_per_cpu,
                                    snapshot.cpus, cpu_names, options));
  families.push_back(packets_by_cpu(data_families::kRemoved, snapshot.removed_per_cpu,
                                    snapshot.cpus, cpu_names, options));
  families.push_back(packets_by_cpu(data_families::kCounted, snapshot.counted_per_cpu,
                                    snapshot.cpus, cpu_names, options));
  families.push_back(gso_fallbacks(snapshot.gso_fallbacks, snapshot.cpus, cpu_names, options));
  families.push_back(single_sample_family(std::string(data_families::kCpus.name),
                                          std::string(data_families::kCpus.help), MetricType::Gauge,
                                          static_cast<double>(snapshot.cpus.size())));
  families.push_back(single_sample_family(std::string(data_families::kSeries.name),
                                          std::string(data_families::kSeries.help),
                                          MetricType::Gauge, static_cast<double>(snapshot.series)));
  families.push_back(single_sample_family(std::string(data_families::kFoldedDevices.name),
                                          std::string(data_families::kFoldedDevices.help),
                                          MetricType::Gauge,
                                          static_cast<double>(snapshot.folded.devices)));
  return families;
}

}  // namespace netif_rx
