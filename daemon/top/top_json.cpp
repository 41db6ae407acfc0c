#include "top/top_json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "util/json_escape.h"

namespace netif_rx {
namespace {

// Shortest text that reads back as the same double (JSON has no NaN or Inf).
std::string json_number(double value) {
  if (!std::isfinite(value)) return "0";
  char buf[32];
  if (value == std::trunc(value) && std::fabs(value) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
    return buf;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return buf;
}

void append_counts(std::string& out, const TopCounters& delta, double span) {
  out += "\"packets\":" + std::to_string(delta.packets);
  out += ",\"bytes\":" + std::to_string(delta.bytes);
  out += ",\"packets_per_second\":" + json_number(per_second(delta.packets, span));
  out += ",\"bytes_per_second\":" + json_number(per_second(delta.bytes, span));
}

// A device's drops per second by reason, in the table's order (most first).
void append_drop_rates(std::string& out, const TopDeviceRows& device, double span) {
  out += ",\"drops_per_second\":{";
  bool first = true;
  for (const TopDropRow& row : device.drops) {
    out += (first ? "" : ",") + json_string(row.reason) + ":" +
           json_number(per_second(row.delta, span));
    first = false;
  }
  out += "}";
}

// "queues":{"cpus":[0,1],"rows":[{"queue":0,"packets":[9,0],
// "packets_per_second":[4.5,0]}]}: each row's arrays follow "cpus".
void append_queue_matrix(std::string& out, const QueueMatrix& matrix, double span) {
  out += ",\"queues\":{\"cpus\":[";
  for (std::size_t column = 0; column < matrix.cpus.size(); ++column) {
    out += (column ? "," : "") + std::to_string(matrix.cpus[column]);
  }
  out += "],\"rows\":[";
  for (std::size_t row = 0; row < matrix.queues.size(); ++row) {
    out += (row ? ",{" : "{") + std::string("\"queue\":") + std::to_string(matrix.queues[row]);
    std::string counts;
    std::string rates;
    for (std::size_t column = 0; column < matrix.cpus.size(); ++column) {
      const std::uint64_t packets = matrix.packets[row][column];
      counts += (column ? "," : "") + std::to_string(packets);
      rates += (column ? "," : "") + json_number(per_second(packets, span));
    }
    out += ",\"packets\":[" + counts + "],\"packets_per_second\":[" + rates + "]}";
  }
  out += "]";
  if (matrix.left_out_queues > 0) {
    out += ",\"left_out_queues\":" + std::to_string(matrix.left_out_queues);
  }
  out += "}";
}

}  // namespace

std::string json_string(const std::string& text) {
  std::string out = "\"";
  append_json_escaped(out, text);
  out += '"';
  return out;
}

std::string render_json(const RateTable& table, const std::string& source) {
  const double span = table.span_seconds;
  std::string out = "{\"source\":" + json_string(source);
  out += ",\"span_seconds\":" + json_number(span);
  out += std::string(",\"per_cpu\":") + (table.per_cpu ? "true" : "false");
  if (table.device) out += ",\"device\":" + json_string(*table.device);
  if (!table.drops_absent.empty()) out += ",\"drops_absent\":" + json_string(table.drops_absent);
  if (!table.queues_absent.empty()) {
    out += ",\"queues_absent\":" + json_string(table.queues_absent);
  }
  out += ",\"devices\":[";
  bool first_device = true;
  for (const TopDeviceRows& device : table.devices) {
    out += first_device ? "{" : ",{";
    first_device = false;
    out += "\"device\":" + json_string(device.id.name);
    if (!device.id.netns.empty()) out += ",\"netns\":" + json_string(device.id.netns);
    out += ",";
    append_counts(out, device.delta, span);
    if (!device.drops.empty()) {
      out += ",\"drops\":{";
      bool first_reason = true;
      for (const TopDropRow& row : device.drops) {
        out +=
            (first_reason ? "" : ",") + json_string(row.reason) + ":" + std::to_string(row.delta);
        first_reason = false;
      }
      out += "}";
      append_drop_rates(out, device, span);
    }
    if (const auto matrix = table.queue_matrices.find(device.id);
        matrix != table.queue_matrices.end()) {
      append_queue_matrix(out, matrix->second, span);
    }
    out += ",\"cpus\":[";
    bool first_cpu = true;
    for (const TopCpuRow& row : device.cpus) {
      out += first_cpu ? "{" : ",{";
      first_cpu = false;
      out += "\"cpu\":" + (row.cpu ? std::to_string(*row.cpu) : std::string("null")) + ",";
      append_counts(out, row.delta, span);
      out += ",\"packets_total\":" + std::to_string(row.total.packets);
      out += ",\"bytes_total\":" + std::to_string(row.total.bytes) + "}";
    }
    out += "]}";
  }
  return out + "]}\n";
}

}  // namespace netif_rx
