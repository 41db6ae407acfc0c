#include "metrics/snapshot_text.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "counters/per_cpu_sum.h"
#include "metrics/data_families.h"
#include "metrics/text_format.h"
#include "metrics/totals_cpus.h"

namespace netif_rx {
namespace {

using data_families::Family;

// A line's label set is `{cpu="N",` (or `{` without the cpu label), then
// the labels that follow cpu, formatted once and closed with `}`. Labels
// stay in alphabetical order: cpu, device, namespace, netns, pod, reason.
// The prefixes `{cpu="N",`, by CPU number:
using CpuPrefixes = std::vector<std::string>;

// CPU numbers up to the last of `totals` and of every device's slots (the
// possible CPUs: a CPU that left keeps its series while they hold counts).
std::size_t cpu_count(const Snapshot& snapshot, const std::vector<unsigned>& totals) {
  std::size_t count = totals.empty() ? 0 : totals.back() + std::size_t{1};
  for (const DeviceSeries& device : snapshot.devices) {
    count = std::max(count, device.per_cpu.size());
  }
  return count;
}

CpuPrefixes cpu_prefixes(std::size_t count) {
  CpuPrefixes prefixes;
  prefixes.reserve(count);
  for (std::size_t cpu = 0; cpu < count; ++cpu) {
    std::string prefix = "{cpu=\"";
    append_integer(prefix, cpu);
    prefix += "\",";
    prefixes.push_back(std::move(prefix));
  }
  return prefixes;
}

// name + `{cpu="N",` + rest (labels after cpu, `}` included) + value.
void append_line(std::string& out, std::string_view name, std::string_view prefix,
                 std::string_view rest, std::uint64_t value) {
  out.append(name).append(prefix).append(rest).push_back(' ');
  append_integer(out, value);
  out.push_back('\n');
}

// The labels of a device after cpu, formatted once for its every line:
// device="...",namespace="...",netns="...",pod="..."}.
void append_device_labels(std::string& out, const DeviceSeries& device,
                          const RenderOptions& options, const NetnsInfoTable* owners) {
  append_label(out, "device", device.name);
  const NetnsInfoEntry* entry = options.netns_label && options.owner_labels && owners
                                    ? owners->find(device.key.netns_inum, device.key.netns_salt)
                                    : nullptr;
  if (entry && !entry->owner.namespace_name.empty()) {
    out.push_back(',');
    append_label(out, "namespace", entry->owner.namespace_name);
  }
  if (options.netns_label) {
    out.append(",netns=\"");
    append_integer(out, device.key.netns_inum);
    out.push_back('"');
  }
  if (entry && !entry->owner.pod.empty()) {
    out.push_back(',');
    append_label(out, "pod", entry->owner.pod);
  }
  out.push_back('}');
}

std::uint64_t packets_of(const netif_rx_counters& counters) { return netif_rx_packets(&counters); }
std::uint64_t skbs_of(const netif_rx_counters& counters) { return counters.skbs; }
std::uint64_t bytes_of(const netif_rx_counters& counters) { return counters.bytes; }

// The device families, each device's labels formatted once into `labels_`.
class DeviceWriter {
 public:
  DeviceWriter(const Snapshot& snapshot, const RenderOptions& options, const NetnsInfoTable* owners)
      : snapshot_(snapshot),
        totals_cpus_(netif_rx::totals_cpus(snapshot)),
        prefixes_(cpu_prefixes(cpu_count(snapshot, totals_cpus_))) {
    ends_.reserve(snapshot.devices.size());
    std::size_t per_cpu_devices = 0;
    for (const DeviceSeries& device : snapshot.devices) {
      append_device_labels(labels_, device, options, owners);
      ends_.push_back(labels_.size());
      if (device.per_cpu_detail) ++per_cpu_devices;
    }
    lines_ = snapshot.devices.size() + per_cpu_devices * snapshot.cpus.size();
    folded_.push_back('{');
    append_label(folded_, "device", data_families::kFoldedDevice);
    folded_.push_back('}');
  }

  // Room for the four families, so that `out` grows once.
  std::size_t size_hint() const {
    constexpr std::size_t kNameCpuValue = 36 + 12 + 21;
    const std::size_t label_bytes =
        snapshot_.devices.empty() ? 0 : labels_.size() / snapshot_.devices.size();
    return 4 * (lines_ * (label_bytes + kNameCpuValue) + 512);
  }

  const CpuPrefixes& prefixes() const { return prefixes_; }
  const std::vector<unsigned>& totals_cpus() const { return totals_cpus_; }

  void write(std::string& out, const Family& family,
             std::uint64_t (*value_of)(const netif_rx_counters&)) const {
    append_family_header(out, family.name, family.help, "counter");
    std::size_t begin = 0;
    for (std::size_t d = 0; d < snapshot_.devices.size(); ++d) {
      const std::string_view rest(labels_.data() + begin, ends_[d] - begin);
      begin = ends_[d];
      const DeviceSeries& device = snapshot_.devices[d];
      if (!device.per_cpu_detail) {
        append_line(out, family.name, "{", rest, value_of(sum_over_cpus(device.per_cpu)));
        continue;
      }
      // A CPU's series from its first packet on, present or not: the counts
      // only grow, and a CPU that left keeps what it counted.
      for (std::size_t cpu = 0; cpu < device.per_cpu.size(); ++cpu) {
        const netif_rx_counters& counters = device.per_cpu[cpu];
        if (!holds_counts(counters)) continue;
        append_line(out, family.name, prefixes_[cpu], rest, value_of(counters));
      }
    }
    if (snapshot_.folded.devices != 0) {
      append_line(out, family.name, "", folded_, value_of(sum_over_cpus(snapshot_.folded.per_cpu)));
    }
  }

  void write_busiest(std::string& out) const {
    const Family& family = data_families::kBusiest;
    append_family_header(out, family.name, family.help, "counter");
    std::size_t begin = 0;
    for (std::size_t d = 0; d < snapshot_.devices.size(); ++d) {
      const std::string_view rest(labels_.data() + begin, ends_[d] - begin);
      begin = ends_[d];
      append_line(out, family.name, "{", rest, snapshot_.devices[d].busiest_packets);
    }
    if (snapshot_.folded.devices != 0) {
      append_line(out, family.name, "", folded_, snapshot_.folded.busiest_packets);
    }
  }

 private:
  const Snapshot& snapshot_;
  std::vector<unsigned> totals_cpus_;  // the totals' CPUs (totals_cpus.h)
  CpuPrefixes prefixes_;
  std::string labels_;             // every device's labels, one after the other
  std::vector<std::size_t> ends_;  // where each device's labels end in labels_
  std::size_t lines_ = 0;          // of each family
  std::string folded_;             // {device="(folded devices)"}
};

void write_gauge(std::string& out, const Family& family, std::uint64_t value) {
  append_family_header(out, family.name, family.help, "gauge");
  out.append(family.name).push_back(' ');
  append_integer(out, value);
  out.push_back('\n');
}

// A counter by CPU (the totals' CPUs) or summed over every CPU, from one
// per-CPU vector, with `rest` the labels after cpu (`}` included, or empty
// for none).
template <typename PerCpu, typename ValueOf>
void write_by_cpu(std::string& out, std::string_view name, const std::vector<PerCpu>& per_cpu,
                  ValueOf value_of, const DeviceWriter& writer, const RenderOptions& options,
                  std::string_view rest) {
  if (options.totals_per_cpu) {
    for (unsigned cpu : writer.totals_cpus()) {
      const std::uint64_t value = cpu < per_cpu.size() ? value_of(per_cpu[cpu]) : 0;
      // Without labels after cpu, the cpu label closes the set: {cpu="N"}.
      std::string_view prefix = writer.prefixes()[cpu];
      if (rest.empty()) prefix.remove_suffix(1);
      append_line(out, name, prefix, rest.empty() ? "}" : rest, value);
    }
    return;
  }
  std::uint64_t sum = 0;
  for (const PerCpu& value : per_cpu) sum += value_of(value);
  if (rest.empty()) {
    out.append(name).push_back(' ');
    append_integer(out, sum);
    out.push_back('\n');
  } else {
    append_line(out, name, "{", rest, sum);
  }
}

void write_packets_by_cpu(std::string& out, const Family& family,
                          const std::vector<netif_rx_counters>& per_cpu, const DeviceWriter& writer,
                          const RenderOptions& options) {
  append_family_header(out, family.name, family.help, "counter");
  write_by_cpu(out, family.name, per_cpu, packets_of, writer, options, {});
}

void write_gso_fallbacks(std::string& out, const Snapshot& snapshot, const DeviceWriter& writer,
                         const RenderOptions& options) {
  const Family& family = data_families::kGsoFallbacks;
  append_family_header(out, family.name, family.help, "counter");
  std::string rest;
  for (const GsoFallbacks& reason : snapshot.gso_fallbacks) {
    rest.clear();
    append_label(rest, "reason", reason.reason);
    rest.push_back('}');
    write_by_cpu(
        out, family.name, reason.skbs_per_cpu, [](std::uint64_t skbs) { return skbs; }, writer,
        options, rest);
  }
}

}  // namespace

void write_snapshot_text(std::string& out, const Snapshot& snapshot, const RenderOptions& options,
                         const NetnsInfoTable* owners) {
  const DeviceWriter devices(snapshot, options, owners);
  out.reserve(out.size() + devices.size_hint());
  devices.write(out, data_families::kPackets, packets_of);
  devices.write(out, data_families::kSkbs, skbs_of);
  devices.write(out, data_families::kBytes, bytes_of);
  devices.write_busiest(out);

  write_packets_by_cpu(out, data_families::kUntracked, snapshot.untracked_per_cpu, devices,
                       options);
  write_packets_by_cpu(out, data_families::kRemoved, snapshot.removed_per_cpu, devices, options);
  write_packets_by_cpu(out, data_families::kCounted, snapshot.counted_per_cpu, devices, options);
  write_gso_fallbacks(out, snapshot, devices, options);
  write_gauge(out, data_families::kCpus, snapshot.cpus.size());
  write_gauge(out, data_families::kSeries, snapshot.series);
  write_gauge(out, data_families::kFoldedDevices, snapshot.folded.devices);
}

}  // namespace netif_rx
