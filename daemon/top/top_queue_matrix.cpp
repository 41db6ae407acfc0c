#include "top/top_queue_matrix.h"

#include <algorithm>
#include <set>

namespace netif_rx {

std::uint64_t QueueMatrix::total() const {
  std::uint64_t sum = 0;
  for (const auto& row : packets) {
    for (std::uint64_t cell : row) sum += cell;
  }
  return sum;
}

QueueMatrix compute_queue_matrix(const TopReading& before, const TopReading& after,
                                 const TopDeviceId& id) {
  QueueMatrix matrix;
  const auto found = after.queues.find(id);
  if (found == after.queues.end() || found->second.empty()) return matrix;
  std::set<unsigned> queues;
  std::set<unsigned> cpus;
  for (const auto& [pair, total] : found->second) {
    queues.insert(pair.queue);
    cpus.insert(pair.cpu);
  }
  matrix.queues.assign(queues.begin(), queues.end());
  matrix.cpus.assign(cpus.begin(), cpus.end());
  const std::size_t max_rows = kMaxQueueMatrixCells / matrix.cpus.size();
  if (matrix.queues.size() > max_rows) {
    matrix.left_out_queues = matrix.queues.size() - max_rows;
    matrix.queues.resize(max_rows);
  }
  matrix.packets.assign(matrix.queues.size(), std::vector<std::uint64_t>(matrix.cpus.size(), 0));

  const auto earlier = before.queues.find(id);
  const auto index_of = [](const std::vector<unsigned>& sorted, unsigned value) {
    return static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), value) -
                                    sorted.begin());
  };
  for (const auto& [pair, total] : found->second) {
    if (!std::binary_search(matrix.queues.begin(), matrix.queues.end(), pair.queue)) continue;
    std::uint64_t previous = 0;
    if (earlier != before.queues.end()) {
      if (const auto at = earlier->second.find(pair); at != earlier->second.end())
        previous = at->second;
    }
    matrix.packets[index_of(matrix.queues, pair.queue)][index_of(matrix.cpus, pair.cpu)] =
        total >= previous ? total - previous : total;
  }
  return matrix;
}

}  // namespace netif_rx
