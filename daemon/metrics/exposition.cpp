#include "metrics/exposition.h"

#include <string>

#include "metrics/metric_family.h"

namespace netif_rx {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

MetricFamily counter_family(std::string name, std::string help) {
  return metric_family(std::move(name), std::move(help), MetricType::Counter);
}

// Labels in a fixed order: cpu, device, netns (alphabetical, as Prometheus
// client libraries write them).
std::vector<ClientMetric::Label> labels(const std::string* cpu, const std::string* device,
                                        const std::string* netns) {
  std::vector<ClientMetric::Label> out;
  out.reserve(3);
  if (cpu) out.push_back({"cpu", *cpu});
  if (device) out.push_back({"device", *device});
  if (netns) out.push_back({"netns", *netns});
  return out;
}

// A packets counter by CPU (or summed), from one per-CPU vector.
MetricFamily packets_by_cpu(std::string name, std::string help,
                            const std::vector<netif_rx_counters>& per_cpu,
                            const std::vector<unsigned>& cpus,
                            const std::vector<std::string>& cpu_names,
                            const RenderOptions& options) {
  MetricFamily family = counter_family(std::move(name), std::move(help));
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    const std::uint64_t value = cpus[i] < per_cpu.size() ? per_cpu[cpus[i]].packets : 0;
    if (options.per_cpu) {
      family.metric.push_back(counter_sample(labels(&cpu_names[i], nullptr, nullptr), value));
    }
    sum += value;
  }
  if (!options.per_cpu) family.metric.push_back(counter_sample({}, sum));
  return family;
}

}  // namespace

std::vector<MetricFamily> render_snapshot(const Snapshot& snapshot, const RenderOptions& options) {
  MetricFamily packets = counter_family("netif_rx_packets_total",
                                        "Packets received by a network device "
                                        "(net:netif_receive_skb), by the CPU that processed them.");
  MetricFamily bytes = counter_family(
      "netif_rx_bytes_total",
      "Bytes (skb->len, network layer) of the packets received by a network device, by CPU.");

  std::vector<std::string> cpu_names;
  cpu_names.reserve(snapshot.cpus.size());
  for (unsigned cpu : snapshot.cpus) cpu_names.push_back(std::to_string(cpu));

  const std::size_t series_per_device = options.per_cpu ? snapshot.cpus.size() : 1;
  packets.metric.reserve(snapshot.devices.size() * series_per_device);
  bytes.metric.reserve(snapshot.devices.size() * series_per_device);

  for (const DeviceSeries& device : snapshot.devices) {
    const std::string netns = std::to_string(device.key.netns_inum);
    const std::string* netns_label = options.netns_label ? &netns : nullptr;
    if (options.per_cpu) {
      for (std::size_t i = 0; i < snapshot.cpus.size(); ++i) {
        const unsigned cpu = snapshot.cpus[i];
        const netif_rx_counters value =
            cpu < device.per_cpu.size() ? device.per_cpu[cpu] : netif_rx_counters{};
        packets.metric.push_back(
            counter_sample(labels(&cpu_names[i], &device.name, netns_label), value.packets));
        bytes.metric.push_back(
            counter_sample(labels(&cpu_names[i], &device.name, netns_label), value.bytes));
      }
    } else {
      netif_rx_counters sum{};
      for (unsigned cpu : snapshot.cpus) {
        if (cpu >= device.per_cpu.size()) continue;
        sum.packets += device.per_cpu[cpu].packets;
        sum.bytes += device.per_cpu[cpu].bytes;
      }
      packets.metric.push_back(
          counter_sample(labels(nullptr, &device.name, netns_label), sum.packets));
      bytes.metric.push_back(counter_sample(labels(nullptr, &device.name, netns_label), sum.bytes));
    }
  }

  std::vector<MetricFamily> families;
  families.push_back(std::move(packets));
  families.push_back(std::move(bytes));
  families.push_back(
      packets_by_cpu("netif_rx_untracked_packets_total",
                     "Packets counted without a device because the probe's device map was full.",
                     snapshot.untracked_per_cpu, snapshot.cpus, cpu_names, options));
  families.push_back(packets_by_cpu("netif_rx_removed_packets_total",
                                    "Packets of devices whose series are gone (deleted, namespace "
                                    "gone, forgotten or replaced), as last read.",
                                    snapshot.removed_per_cpu, snapshot.cpus, cpu_names, options));
  families.push_back(packets_by_cpu(
      "netif_rx_counted_packets_total",
      "Every packet the probe counted, read just before the devices: at most the sum of "
      "netif_rx_packets_total, netif_rx_untracked_packets_total and "
      "netif_rx_removed_packets_total.",
      snapshot.counted_per_cpu, snapshot.cpus, cpu_names, options));
  return families;
}

}  // namespace netif_rx
