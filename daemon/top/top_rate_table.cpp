#include "top/top_rate_table.h"

#include <algorithm>
#include <tuple>

namespace netif_rx {
namespace {

std::uint64_t increase(std::uint64_t before, std::uint64_t after) {
  return after >= before ? after - before : after;
}

TopCounters increase(const TopCounters& before, const TopCounters& after) {
  // A reset shows in the packets; bytes follow the packets' verdict.
  if (after.packets < before.packets || after.bytes < before.bytes) return after;
  return {increase(before.packets, after.packets), increase(before.bytes, after.bytes)};
}

}  // namespace

double span_seconds(const TopReading& before, const TopReading& after) {
  if (before.polled_at && after.polled_at && *after.polled_at > *before.polled_at) {
    return *after.polled_at - *before.polled_at;
  }
  const double local = std::chrono::duration<double>(after.taken - before.taken).count();
  return local > 0 ? local : 0;
}

double per_second(std::uint64_t count, double span) {
  return span > 0 ? static_cast<double>(count) / span : 0;
}

namespace {

// A device's drops during the span by reason, most first (a counter that went
// down counts from zero, as rate() does).
std::vector<TopDropRow> drop_rows(const TopReading& before, const TopReading& after,
                                  const TopDeviceId& id) {
  std::vector<TopDropRow> rows;
  const auto found = after.drops.find(id);
  if (found == after.drops.end()) return rows;
  const auto earlier = before.drops.find(id);
  for (const auto& [reason, total] : found->second) {
    std::uint64_t previous = 0;
    if (earlier != before.drops.end()) {
      if (const auto at = earlier->second.find(reason); at != earlier->second.end())
        previous = at->second;
    }
    const std::uint64_t delta = total >= previous ? total - previous : total;
    if (delta > 0) rows.push_back({reason, delta});
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const TopDropRow& a, const TopDropRow& b) { return a.delta > b.delta; });
  return rows;
}

}  // namespace

RateTable compute_rate_table(const TopReading& before, const TopReading& after) {
  RateTable table;
  table.span_seconds = span_seconds(before, after);
  table.per_cpu = after.per_cpu;
  table.cpus = after.cpus;
  table.drops_absent = after.drops_absent;
  table.queues_absent = after.queues_absent;

  for (const auto& [id, after_cpus] : after.devices) {
    TopDeviceRows device{id, {}, {}, {}};
    const auto before_device = before.devices.find(id);
    // Rows for every CPU of the reading, so that idle CPUs show as zero.
    std::vector<std::optional<unsigned>> keys;
    const bool summed = after_cpus.size() == 1 && after_cpus.count(std::nullopt);
    if (after.per_cpu && !summed) {
      keys.assign(after.cpus.begin(), after.cpus.end());
    } else {
      keys.push_back(std::nullopt);
    }
    for (const auto& [cpu, counters] : after_cpus) {
      if (std::find(keys.begin(), keys.end(), cpu) == keys.end()) keys.push_back(cpu);
    }
    std::sort(keys.begin(), keys.end());
    for (const auto& cpu : keys) {
      TopCounters total;
      if (const auto found = after_cpus.find(cpu); found != after_cpus.end()) total = found->second;
      TopCounters previous;
      if (before_device != before.devices.end()) {
        if (const auto found = before_device->second.find(cpu);
            found != before_device->second.end()) {
          previous = found->second;
        }
      }
      const TopCounters delta = increase(previous, total);
      device.delta.packets += delta.packets;
      device.delta.bytes += delta.bytes;
      device.cpus.push_back({cpu, delta, total});
    }
    device.drops = drop_rows(before, after, id);
    table.devices.push_back(std::move(device));
  }
  std::sort(table.devices.begin(), table.devices.end(),
            [](const TopDeviceRows& a, const TopDeviceRows& b) {
              return std::tie(b.delta.packets, b.delta.bytes, a.id) <
                     std::tie(a.delta.packets, a.delta.bytes, b.id);
            });
  return table;
}

}  // namespace netif_rx
