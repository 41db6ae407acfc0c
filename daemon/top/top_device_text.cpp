#include "top/top_device_text.h"

#include <algorithm>

#include "top/top_histogram.h"
#include "util/printable.h"

namespace netif_rx {
namespace {

constexpr std::size_t kGap = 2;  // spaces before each column

std::string pad_left(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

std::string pad_right(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

// A cell: its packets per second, "." for a pair without packets in the span
// (a rate that rounds to 0.0 still had some).
std::string cell_text(std::uint64_t packets, double span) {
  return packets == 0 ? "." : format_rate(per_second(packets, span));
}

void append_matrix(std::vector<std::string>& lines, const QueueMatrix& matrix, double span,
                   unsigned width) {
  lines.push_back("RX queue -> CPU, packets/s (rows: queues, columns: CPUs):");
  const std::string corner = "queue";
  std::size_t label_width = corner.size();
  for (unsigned queue : matrix.queues) {
    label_width = std::max(label_width, std::to_string(queue).size());
  }
  // Every column as wide as the widest cell or heading, so that they align.
  std::size_t column_width = 1;
  for (unsigned cpu : matrix.cpus) {
    column_width = std::max(column_width, ("cpu " + std::to_string(cpu)).size());
  }
  for (const auto& row : matrix.packets) {
    for (std::uint64_t cell : row)
      column_width = std::max(column_width, cell_text(cell, span).size());
  }
  const std::size_t room = width > label_width ? width - label_width : 0;
  const std::size_t fits = std::min(matrix.cpus.size(), room / (kGap + column_width));

  std::string heading = pad_right(corner, label_width);
  for (std::size_t column = 0; column < fits; ++column) {
    heading += std::string(kGap, ' ') +
               pad_left("cpu " + std::to_string(matrix.cpus[column]), column_width);
  }
  lines.push_back(heading);
  for (std::size_t row = 0; row < matrix.queues.size(); ++row) {
    std::string line = pad_left(std::to_string(matrix.queues[row]), label_width);
    for (std::size_t column = 0; column < fits; ++column) {
      line += std::string(kGap, ' ') +
              pad_left(cell_text(matrix.packets[row][column], span), column_width);
    }
    lines.push_back(line);
  }
  if (matrix.left_out_queues > 0) {
    lines.push_back(std::to_string(matrix.left_out_queues) +
                    " more queues left out: the matrix is limited to " +
                    std::to_string(kMaxQueueMatrixCells) + " cells");
  }
  if (fits < matrix.cpus.size()) {
    const std::size_t left = matrix.cpus.size() - fits;
    lines.push_back(std::to_string(left) + (left == 1 ? " CPU" : " CPUs") + " more (to cpu " +
                    std::to_string(matrix.cpus.back()) +
                    ") do not fit; --output=json has every one");
  }
}

void append_queues(std::vector<std::string>& lines, const RateTable& table,
                   const TopDeviceRows& device, unsigned width) {
  if (!table.queues_absent.empty()) {
    lines.push_back("RX queues: not shown: " + printable(table.queues_absent));
    return;
  }
  const auto found = table.queue_matrices.find(device.id);
  if (found == table.queue_matrices.end() || found->second.empty()) {
    lines.push_back(
        "RX queues: none: its driver records none, or it is outside per_cpu.devices (see check)");
    return;
  }
  append_matrix(lines, found->second, table.span_seconds, width);
}

void append_drops(std::vector<std::string>& lines, const RateTable& table,
                  const TopDeviceRows& device) {
  if (!table.drops_absent.empty()) {
    lines.push_back("drops: not shown: " + printable(table.drops_absent));
    return;
  }
  if (device.drops.empty()) {
    lines.push_back("drops: none in this span");
    return;
  }
  lines.push_back("drops by reason, per second:");
  std::size_t reason_width = 0;
  for (const TopDropRow& row : device.drops) {
    reason_width = std::max(reason_width, printable(row.reason).size());
  }
  for (const TopDropRow& row : device.drops) {
    lines.push_back("  " + pad_right(printable(row.reason), reason_width) + "  " +
                    format_rate(per_second(row.delta, table.span_seconds)));
  }
}

}  // namespace

std::vector<std::string> device_detail_lines(const RateTable& table, const TopDeviceRows& device,
                                             unsigned width) {
  std::vector<std::string> lines;
  append_queues(lines, table, device, width);
  append_drops(lines, table, device);
  for (std::string& line : lines) line = fit_to_width(line, width);
  return lines;
}

}  // namespace netif_rx
