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
