#include "drops/drop_series.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "devices/label_value.h"

namespace netif_rx {

std::size_t DropsSnapshot::series_count() const {
  // netif_rx_untracked_drops_total is one series while the counter is attached.
  std::size_t count = series.size() + folded.size() + (attached ? 1 : 0);
  for (std::uint64_t drops : backlog_per_cpu) {
    if (drops != 0) ++count;
  }
  return count;
}

DropsSnapshot build_drops_snapshot(const DropCounts& counts, const DropReasonTable& reasons,
                                   std::size_t budget, const DeviceExported& exported) {
  DropsSnapshot out;
  out.attached = true;
  out.backlog = reasons.backlog.has_value();
  for (std::uint64_t drops : counts.untracked_per_cpu) out.untracked += drops;
  out.backlog_per_cpu.assign(counts.counted_per_cpu.size(), 0);

  std::vector<DropSeries> all;
  for (const DropEntry& entry : counts.entries) {
    std::uint64_t sum = 0;
    for (std::uint64_t drops : entry.per_cpu) sum += drops;
    if (sum == 0) continue;
    const std::uint32_t value = entry.key.reason;
    if (reasons.backlog && value == *reasons.backlog) {
      if (out.backlog_per_cpu.size() < entry.per_cpu.size())
        out.backlog_per_cpu.resize(entry.per_cpu.size());
      for (std::size_t cpu = 0; cpu < entry.per_cpu.size(); ++cpu)
        out.backlog_per_cpu[cpu] += entry.per_cpu[cpu];
    }
    const netif_rx_device_key device{entry.key.netns_inum, entry.key.ifindex, entry.key.netns_salt};
    const auto name = counts.names.find(device);
    if (exported && name != counts.names.end() && !exported(name->second)) continue;
    DropSeries series;
    series.netns_inum = entry.key.netns_inum;
    series.netns_salt = entry.key.netns_salt;
    series.device = name != counts.names.end() && !name->second.empty()
                        ? to_label_value(name->second)
                        : "(ifindex " + std::to_string(entry.key.ifindex) + ")";
    series.reason = value < reasons.names.size() && !reasons.names[value].empty()
                        ? reasons.names[value]
                        : std::to_string(value);
    series.packets = sum;
    all.push_back(std::move(series));
  }
  std::sort(all.begin(), all.end(), [](const DropSeries& a, const DropSeries& b) {
    return std::tie(a.device, a.netns_inum, a.reason) < std::tie(b.device, b.netns_inum, b.reason);
  });
  // One series per label set: a device deleted and made again under its
  // name (another ifindex), or a reused namespace inode (another salt),
  // adds to the series of that name.
  std::vector<DropSeries> merged;
  for (DropSeries& series : all) {
    if (!merged.empty() && merged.back().device == series.device &&
        merged.back().netns_inum == series.netns_inum && merged.back().reason == series.reason) {
      merged.back().packets += series.packets;
      continue;
    }
    merged.push_back(std::move(series));
  }
  all = std::move(merged);

  // The budget: backlog by CPU first, then a series per reason for the
  // folded devices (at most one per reason seen), then whole devices.
  std::set<std::string> reasons_seen;
  for (const DropSeries& series : all) reasons_seen.insert(series.reason);
  const std::size_t backlog_lines = out.series_count();
  std::size_t left = budget > backlog_lines ? budget - backlog_lines : 0;
  const bool fits = all.size() <= left;
  const std::size_t reserve = fits ? 0 : reasons_seen.size();
  left = left > reserve ? left - reserve : 0;

  std::map<std::string, std::uint64_t> folded;
  for (std::size_t i = 0; i < all.size();) {
    // One device: the run of series with its (device, netns).
    std::size_t end = i + 1;
    while (end < all.size() && all[end].device == all[i].device &&
           all[end].netns_inum == all[i].netns_inum)
      ++end;
    const std::size_t lines = end - i;
    if (fits || (folded.empty() && lines <= left)) {
      left -= std::min(left, lines);
      for (std::size_t k = i; k < end; ++k) out.series.push_back(std::move(all[k]));
    } else {
      ++out.folded_devices;
      for (std::size_t k = i; k < end; ++k) folded[all[k].reason] += all[k].packets;
    }
    i = end;
  }
  for (auto& [reason, packets] : folded) out.folded.push_back({reason, packets});
  return out;
}

}  // namespace netif_rx
