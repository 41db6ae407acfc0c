// What top shows: the packets and bytes of each device and CPU between two
// readings, busiest device first. Pure.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "top/top_queue_matrix.h"
#include "top/top_reading.h"

namespace netif_rx {

struct TopCpuRow {
  std::optional<unsigned> cpu;  // nullopt: the sum over CPUs (no per-CPU data)
  TopCounters delta;            // during the span
  TopCounters total;            // cumulative, at the end of the span
};

struct TopDropRow {
  std::string reason;  // the kernel's drop reason
  std::uint64_t delta = 0;
};

struct TopDeviceRows {
  TopDeviceId id;
  TopCounters delta;            // summed over CPUs
  std::vector<TopCpuRow> cpus;  // ascending CPU number
  // Drops during the span by reason, most first; only reasons that dropped.
  std::vector<TopDropRow> drops;
  std::uint64_t dropped() const {
    std::uint64_t sum = 0;
    for (const TopDropRow& row : drops) sum += row.delta;
    return sum;
  }
};

struct RateTable {
  double span_seconds = 0;  // between the two readings (0: unknown)
  bool per_cpu = true;
  std::vector<unsigned> cpus;
  // Most packets first, then most bytes, then by name and namespace.
  std::vector<TopDeviceRows> devices;
  // Why the source has no drops (queues) at all; empty when it has them.
  std::string drops_absent;
  std::string queues_absent;
  // --device: the name asked for; `devices` holds only its devices (one per
  // namespace), idle or not, each with its matrix in `queue_matrices` when
  // the source has queues.
  std::optional<std::string> device;
  std::map<TopDeviceId, QueueMatrix> queue_matrices;
};

// The span between two readings: the exporter's poll times when both have
// them and they differ, else this host's clock.
double span_seconds(const TopReading& before, const TopReading& after);

// Differences per device and CPU from `before` to `after`. A device that is
// new in `after` counts from zero; a counter that went down (the exporter
// restarted, or the device was re-created) counts from zero too, as
// Prometheus' rate() does; a device gone from `after` is left out.
RateTable compute_rate_table(const TopReading& before, const TopReading& after);

// Per second over the span, 0 when the span is unknown.
double per_second(std::uint64_t count, double span_seconds);

}  // namespace netif_rx
