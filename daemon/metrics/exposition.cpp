#include "metrics/exposition.h"

#include <string>

#include "counters/per_cpu_sum.h"
#include "metrics/data_families.h"
#include "metrics/metric_family.h"
#include "metrics/totals_cpus.h"

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

// A counter by CPU (the CPUs of totals_cpus) or summed over every CPU, from
// one per-CPU vector, with `extra` labels before the cpu label's place.
template <typename PerCpu, typename ValueOf>
void add_by_cpu(MetricFamily& family, const std::vector<PerCpu>& per_cpu, ValueOf value_of,
                const std::vector<unsigned>& cpus, const RenderOptions& options,
                const std::vector<ClientMetric::Label>& extra = {}) {
  if (!options.totals_per_cpu) {
    std::uint64_t sum = 0;
    for (const PerCpu& value : per_cpu) sum += value_of(value);
    family.metric.push_back(counter_sample(extra, sum));
    return;
  }
  for (unsigned cpu : cpus) {
    const std::uint64_t value = cpu < per_cpu.size() ? value_of(per_cpu[cpu]) : 0;
    const std::string cpu_name = std::to_string(cpu);
    auto with_cpu = labels(&cpu_name, nullptr, nullptr);
    with_cpu.insert(with_cpu.end(), extra.begin(), extra.end());
    family.metric.push_back(counter_sample(std::move(with_cpu), value));
  }
}

// A packets counter by CPU (or summed), from one per-CPU vector.
MetricFamily packets_by_cpu(const data_families::Family& what,
                            const std::vector<netif_rx_counters>& per_cpu,
                            const std::vector<unsigned>& cpus, const RenderOptions& options) {
  MetricFamily family = counter_family(what);
  add_by_cpu(
      family, per_cpu, [](const netif_rx_counters& c) { return netif_rx_packets(&c); }, cpus,
      options);
  return family;
}

// netif_rx_gso_fallbacks_total{cpu, reason}: labels in alphabetical order.
MetricFamily gso_fallbacks(const std::vector<GsoFallbacks>& fallbacks,
                           const std::vector<unsigned>& cpus, const RenderOptions& options) {
  MetricFamily family = counter_family(data_families::kGsoFallbacks);
  for (const GsoFallbacks& reason : fallbacks) {
    add_by_cpu(family, reason.skbs_per_cpu, [](std::uint64_t skbs) { return skbs; }, cpus, options,
               {{"reason", reason.reason}});
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

std::vector<MetricFamily> render_snapshot(const Snapshot& snapshot, const RenderOptions& options,
                                          const NetnsInfoTable* owners) {
  DeviceFamilies devices;

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
      // A CPU's series from its first packet on, present or not: the counts
      // only grow, and a CPU that left keeps what it counted.
      for (std::size_t cpu = 0; cpu < device.per_cpu.size(); ++cpu) {
        const netif_rx_counters& value = device.per_cpu[cpu];
        if (!holds_counts(value)) continue;
        const std::string cpu_name = std::to_string(cpu);
        devices.add(labels(&cpu_name, &device.name, netns_label, owner), value);
      }
    } else {
      devices.add(labels(nullptr, &device.name, netns_label, owner), sum_over_cpus(device.per_cpu));
    }
    devices.busiest.metric.push_back(
        counter_sample(labels(nullptr, &device.name, netns_label, owner), device.busiest_packets));
  }
  if (snapshot.folded.devices != 0) {
    const std::string folded(data_families::kFoldedDevice);
    const auto folded_labels = labels(nullptr, &folded, nullptr);
    devices.add(folded_labels, sum_over_cpus(snapshot.folded.per_cpu));
    devices.busiest.metric.push_back(
        counter_sample(folded_labels, snapshot.folded.busiest_packets));
  }

  const std::vector<unsigned> cpus = totals_cpus(snapshot);
  std::vector<MetricFamily> families;
  families.push_back(std::move(devices.packets));
  families.push_back(std::move(devices.skbs));
  families.push_back(std::move(devices.bytes));
  families.push_back(std::move(devices.busiest));
  families.push_back(
      packets_by_cpu(data_families::kUntracked, snapshot.untracked_per_cpu, cpus, options));
  families.push_back(
      packets_by_cpu(data_families::kRemoved, snapshot.removed_per_cpu, cpus, options));
  families.push_back(
      packets_by_cpu(data_families::kCounted, snapshot.counted_per_cpu, cpus, options));
  families.push_back(gso_fallbacks(snapshot.gso_fallbacks, cpus, options));
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
