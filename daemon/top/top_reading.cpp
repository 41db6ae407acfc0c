#include "top/top_reading.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "counters/per_cpu_sum.h"

namespace netif_rx {
namespace {

constexpr std::string_view kPackets = "netif_rx_packets_total";
constexpr std::string_view kBytes = "netif_rx_bytes_total";
constexpr std::string_view kDrops = "netif_rx_drops_total";
constexpr std::string_view kUntracked = "netif_rx_untracked_packets_total";
constexpr std::string_view kDropsUntracked = "netif_rx_untracked_drops_total";
constexpr std::string_view kQueues = "netif_rx_queue_packets_total";
constexpr std::string_view kQueuesUntracked = "netif_rx_queue_untracked_packets_total";
constexpr std::string_view kPolledAt = "netif_rx_exporter_last_poll_timestamp_seconds";

std::string describe(const ExpositionSample& sample) {
  std::string out = sample.name + "{";
  bool first = true;
  for (const auto& [label, value] : sample.labels) {
    out += (first ? "" : ",") + label + "=\"" + value + "\"";
    first = false;
  }
  return out + "}";
}

std::uint64_t counter_value(const ExpositionSample& sample) {
  // Doubles hold integers exactly up to 2^53; beyond that, the nearest.
  if (!std::isfinite(sample.value) || sample.value < 0 || sample.value >= 0x1p64) {
    throw ExpositionParseError(describe(sample) + ": " + std::to_string(sample.value) +
                               " is not a counter value");
  }
  return static_cast<std::uint64_t>(sample.value);
}

// The number in label `name` ("cpu", "queue"); nullopt when it is missing.
std::optional<unsigned> number_label(const ExpositionSample& sample, const std::string& name) {
  const auto found = sample.labels.find(name);
  if (found == sample.labels.end()) return std::nullopt;
  const std::string& text = found->second;
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    throw ExpositionParseError(describe(sample) + ": " + name + " '" + text + "' is not a " +
                               (name == "cpu" ? "CPU" : name) + " number");
  }
  return static_cast<unsigned>(std::stoul(text));
}

std::optional<unsigned> cpu_of(const ExpositionSample& sample) {
  return number_label(sample, "cpu");
}

TopDeviceId device_of(const ExpositionSample& sample) {
  const auto device = sample.labels.find("device");
  if (device == sample.labels.end()) {
    throw ExpositionParseError(describe(sample) + ": the device label is missing");
  }
  const auto netns = sample.labels.find("netns");
  return {device->second, netns == sample.labels.end() ? "" : netns->second};
}

// A sample of netif_rx_queue_packets_total into `reading`.
void add_queue_sample(TopReading& reading, const ExpositionSample& sample) {
  const std::optional<unsigned> queue = number_label(sample, "queue");
  const std::optional<unsigned> cpu = cpu_of(sample);
  if (!queue || !cpu) {
    throw ExpositionParseError(describe(sample) + ": the queue or cpu label is missing");
  }
  reading.queues[device_of(sample)][{*queue, *cpu}] = counter_value(sample);
}

}  // namespace

TopReading reading_from_snapshot(const Snapshot& snapshot, bool netns_label) {
  TopReading reading;
  // The probe that top loads counts packets only; the exporter attaches the
  // drop counter and reads the queue maps.
  reading.drops_absent = "top's own probe counts no drops; read an exporter with --from";
  reading.queues_absent = "top's own probe reads no RX queues; read an exporter with --from";
  // The present CPUs, and those that left while a device holds counts there.
  reading.cpus = snapshot.cpus;
  for (const DeviceSeries& device : snapshot.devices) {
    for (std::size_t cpu = 0; cpu < device.per_cpu.size(); ++cpu) {
      if (holds_counts(device.per_cpu[cpu])) reading.cpus.push_back(static_cast<unsigned>(cpu));
    }
  }
  std::sort(reading.cpus.begin(), reading.cpus.end());
  reading.cpus.erase(std::unique(reading.cpus.begin(), reading.cpus.end()), reading.cpus.end());
  for (const DeviceSeries& device : snapshot.devices) {
    TopDeviceId id{device.name, netns_label ? std::to_string(device.key.netns_inum) : ""};
    TopCpuCounters& per_cpu = reading.devices[id];
    for (unsigned cpu : reading.cpus) {
      if (cpu >= device.per_cpu.size()) continue;
      TopCounters& counters = per_cpu[cpu];
      // Two devices can't share a name in one namespace; add in case a
      // rename raced the snapshot.
      counters.packets += netif_rx_packets(&device.per_cpu[cpu]);
      counters.bytes += device.per_cpu[cpu].bytes;
    }
  }
  return reading;
}

TopReading reading_from_exposition(std::string_view text) {
  TopReading reading;
  std::set<unsigned> cpus;
  bool seen_drops = false;
  bool seen_queues = false;
  bool seen_exporter = false;
  bool seen_with_cpu = false;
  bool seen_without_cpu = false;
  for (const ExpositionSample& sample : parse_exposition_text(text)) {
    if (sample.name == kPolledAt) {
      if (sample.value > 0) reading.polled_at = sample.value;
      continue;
    }
    if (sample.name == kUntracked) {
      // Always there, one per CPU (or one): names the page and its CPUs.
      seen_exporter = true;
      const std::optional<unsigned> cpu = cpu_of(sample);
      (cpu ? seen_with_cpu : seen_without_cpu) = true;
      if (cpu) cpus.insert(*cpu);
      continue;
    }
    if (sample.name == kDrops) {
      const auto device = sample.labels.find("device");
      const auto reason = sample.labels.find("reason");
      if (device == sample.labels.end() || reason == sample.labels.end()) {
        throw ExpositionParseError(describe(sample) + ": the device or reason label is missing");
      }
      reading.drops[device_of(sample)][reason->second] = counter_value(sample);
      seen_drops = true;
      continue;
    }
    if (sample.name == kDropsUntracked) {
      seen_drops = true;
      continue;
    }
    if (sample.name == kQueues) {
      add_queue_sample(reading, sample);
      seen_queues = true;
      continue;
    }
    if (sample.name == kQueuesUntracked) {
      seen_queues = true;
      continue;
    }
    const bool packets = sample.name == kPackets;
    if (!packets && sample.name != kBytes) continue;
    const TopDeviceId id = device_of(sample);
    const std::optional<unsigned> cpu = cpu_of(sample);
    (cpu ? seen_with_cpu : seen_without_cpu) = true;
    if (cpu) cpus.insert(*cpu);
    TopCounters& counters = reading.devices[id][cpu];
    (packets ? counters.packets : counters.bytes) = counter_value(sample);
    seen_exporter = true;
  }
  if (!seen_exporter) {
    throw ExpositionParseError(
        "no netif_rx_packets_total or netif_rx_untracked_packets_total series: is this a "
        "netif_rx_exporter's metrics page?");
  }
  // Devices of the per-CPU class come by CPU, the others summed (no cpu
  // label); one device is either.
  for (const auto& [id, counters] : reading.devices) {
    if (counters.size() > 1 && counters.count(std::nullopt)) {
      throw ExpositionParseError("the series of device '" + id.name +
                                 "' mix samples with and without the cpu label");
    }
  }
  reading.per_cpu = seen_with_cpu;
  reading.cpus.assign(cpus.begin(), cpus.end());
  if (!seen_drops) {
    reading.drops_absent =
        "the exporter serves no netif_rx_drops_total (its kernel is older than 5.17, or it has "
        "no drop counter)";
  }
  if (!seen_queues) {
    reading.queues_absent =
        "the exporter serves no netif_rx_queue_packets_total (a version that predates it)";
  }
  return reading;
}

}  // namespace netif_rx
