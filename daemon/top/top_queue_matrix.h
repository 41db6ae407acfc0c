// One device's RX queue -> CPU matrix between two readings: which CPU
// processed the packets of each queue its driver recorded. Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "top/top_reading.h"

namespace netif_rx {

struct QueueMatrix {
  std::vector<unsigned> queues;  // rows, ascending
  std::vector<unsigned> cpus;    // columns, ascending
  // packets[row][column]: the packets of queues[row] on cpus[column] during
  // the span; 0 where the pair has no series.
  std::vector<std::vector<std::uint64_t>> packets;
  // Queues past the cell limit, left out (a page that no real device makes).
  std::size_t left_out_queues = 0;

  bool empty() const { return queues.empty(); }
  std::uint64_t total() const;
};

// The matrix of device `id` from `before` to `after`. Rows are the queues
// and columns the CPUs that have a series in `after` (the exporter serves
// only pairs that counted); a pair new in `after`, or whose counter went
// down (a restart, a re-created device), counts from zero, as rate() does.
// Empty when the device has no queue series: its driver records no queue.
// At most kMaxQueueMatrixCells cells: the highest queues past that are left
// out and counted, so that a hostile page cannot make top allocate queues x
// CPUs without bound.
inline constexpr std::size_t kMaxQueueMatrixCells = 1 << 20;

QueueMatrix compute_queue_matrix(const TopReading& before, const TopReading& after,
                                 const TopDeviceId& id);

}  // namespace netif_rx
