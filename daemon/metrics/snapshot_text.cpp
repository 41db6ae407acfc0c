#include "metrics/snapshot_text.h"

#include <string_view>
#include <vector>

#include "metrics/data_families.h"
#include "metrics/text_format.h"

namespace netif_rx {
namespace {

using data_families::Family;

// A line's label set is `{cpu="N",` (or `{` without the cpu label), then
// the labels that follow cpu, formatted once and closed with `}`. Labels
// stay in alphabetical order: cpu, device, namespace, netns, pod, reason.
// The prefixes `{cpu="N",`, by the snapshot's CPU list:
using CpuPrefixes = std::vector<std::string>;

CpuPrefixes cpu_prefixes(const std::vector<unsigned>& cpus) {
  CpuPrefixes prefixes;
  prefixes.reserve(cpus.size());
  for (unsigned cpu : cpus) {
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

netif_rx_counters counters_at(const std::vector<netif_rx_counters>& per_cpu, unsigned cpu) {
  return cpu < per_cpu.size() ? per_cpu[cpu] : netif_rx_counters{};
}

std::uint64_t packets_of(const netif_rx_counters& counters) { return netif_rx_packets(&counters); }
std::uint64_t skbs_of(const netif_rx_counters& counters) { return counters.skbs; }
std::uint64_t bytes_of(const netif_rx_counters& counters) { return counters.bytes; }

bool counted_on(const netif_rx_counters& counters) {
  return counters.skbs != 0 || counters.merged_packets != 0 || counters.bytes != 0;
}

// The device families, each device's labels formatted once into `labels_`.
class DeviceWriter {
 public:
  DeviceWriter(const Snapshot& snapshot, const RenderOptions& options, const NetnsInfoTable* owners)
      : snapshot_(snapshot), prefixes_(cpu_prefixes(snapshot.cpus)) {
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

  void write(std::string& out, const Family& family,
             std::uint64_t (*value_of)(const netif_rx_counters&)) const {
    append_family_header(out, family.name, family.help, "counter");
    std::size_t begin = 0;
    for (std::size_t d = 0; d < snapshot_.devices.size(); ++d) {
      const std::string_view rest(labels_.data() + begin, ends_[d] - begin);
      begin = ends_[d];
      const DeviceSeries& device = snapshot_.devices[d];
      if (!device.per_cpu_detail) {
        append_line(out, family.name, "{", rest,
                    value_of(summed_over(device.per_cpu, snapshot_.cpus)));
        continue;
      }
      // A CPU's series from its first packet on: the counts only grow.
      for (std::size_t i = 0; i < snapshot_.cpus.size(); ++i) {
        const netif_rx_counters counters = counters_at(device.per_cpu, snapshot_.cpus[i]);
        if (!counted_on(counters)) continue;
        append_line(out, family.name, prefixes_[i], rest, value_of(counters));
      }
    }
    if (snapshot_.folded.devices != 0) {
      append_line(out, family.name, "", folded_,
                  value_of(summed_over(snapshot_.folded.per_cpu, snapshot_.cpus)));
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

// A counter by CPU (or summed) from one per-CPU vector, with `rest` the
// labels after cpu (`}` included, or empty for none).
template <typename PerCpu, typename ValueOf>
void write_by_cpu(std::string& out, std::string_view name, const std::vector<PerCpu>& per_cpu,
                  ValueOf value_of, const Snapshot& snapshot, const CpuPrefixes& prefixes,
                  const RenderOptions& options, std::string_view rest) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < snapshot.cpus.size(); ++i) {
    const unsigned cpu = snapshot.cpus[i];
    const std::uint64_t value = cpu < per_cpu.size() ? value_of(per_cpu[cpu]) : 0;
    if (options.totals_per_cpu) {
      // Without labels after cpu, the cpu label closes the set: {cpu="N"}.
      std::string_view prefix = prefixes[i];
      if (rest.empty()) prefix.remove_suffix(1);
      append_line(out, name, prefix, rest.empty() ? "}" : rest, value);
    }
    sum += value;
  }
  if (options.totals_per_cpu) return;
  if (rest.empty()) {
    out.append(name).push_back(' ');
    append_integer(out, sum);
    out.push_back('\n');
  } else {
    append_line(out, name, "{", rest, sum);
  }
}

void write_packets_by_cpu(std::string& out, const Family& family,
                          const std::vector<netif_rx_counters>& per_cpu, const Snapshot& snapshot,
                          const CpuPrefixes& prefixes, const RenderOptions& options) {
  append_family_header(out, family.name, family.help, "counter");
  write_by_cpu(out, family.name, per_cpu, packets_of, snapshot, prefixes, options, {});
}

void write_gso_fallbacks(std::string& out, const Snapshot& snapshot, const CpuPrefixes& prefixes,
                         const RenderOptions& options) {
  const Family& family = data_families::kGsoFallbacks;
  append_family_header(out, family.name, family.help, "counter");
  std::string rest;
  for (const GsoFallbacks& reason : snapshot.gso_fallbacks) {
    rest.clear();
    append_label(rest, "reason", reason.reason);
    rest.push_back('}');
    write_by_cpu(
        out, family.name, reason.skbs_per_cpu, [](std::uint64_t skbs) { return skbs; }, snapshot,
        prefixes, options, rest);
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

  const CpuPrefixes& prefixes = devices.prefixes();
  write_packets_by_cpu(out, data_families::kUntracked, snapshot.untracked_per_cpu, snapshot,
                       prefixes, options);
  write_packets_by_cpu(out, data_families::kRemoved, snapshot.removed_per_cpu, snapshot, prefixes,
                       options);
  write_packets_by_cpu(out, data_families::kCounted, snapshot.counted_per_cpu, snapshot, prefixes,
                       options);
  write_gso_fallbacks(out, snapshot, prefixes, options);
  write_gauge(out, data_families::kCpus, snapshot.cpus.size());
  write_gauge(out, data_families::kSeries, snapshot.series);
  write_gauge(out, data_families::kFoldedDevices, snapshot.folded.devices);
}

}  // namespace netif_rx
