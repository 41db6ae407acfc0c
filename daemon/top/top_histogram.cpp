#include "top/top_histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "top/top_device_text.h"
#include "util/printable.h"

namespace netif_rx {
namespace {

constexpr unsigned kMinWidth = 20;

std::string printf_string(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

std::string format_span(double seconds) {
  const double millis = std::round(seconds * 1000);
  return millis < 1000 ? printf_string("%.0fms", millis) : printf_string("%.2fs", seconds);
}

std::string row_label(const std::optional<unsigned>& cpu) {
  if (!cpu) return "all";
  return "[" + std::to_string(*cpu) + ", " + std::to_string(*cpu + 1) + ")";
}

std::string pad_left(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

std::string pad_right(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

std::string device_title(const TopDeviceRows& device, double span) {
  // Names come from the kernel or a remote page: no raw control characters.
  std::string title = printable(device.id.name);
  if (!device.id.netns.empty()) title += " (netns " + printable(device.id.netns) + ")";
  title += ": " + std::to_string(device.delta.packets) + " packets";
  if (span > 0) title += " (" + format_rate(per_second(device.delta.packets, span)) + "/s)";
  title += ", " + format_bytes(static_cast<double>(device.delta.bytes));
  if (span > 0) {
    title += " (" + format_bytes(per_second(device.delta.bytes, span)) + "/s)";
  }
  return title;
}

// Drawn: packets or drops in the span, or the device asked for (--device).
bool shown(const RateTable& table, const TopDeviceRows& device) {
  return table.device || device.delta.packets > 0 || !device.drops.empty();
}

// "dropped 42 (8.4/s): NO_SOCKET 40, SOCKET_RCVBUFF 2"
std::string drops_line(const TopDeviceRows& device, double span) {
  const std::uint64_t dropped = device.dropped();
  std::string text = "dropped " + std::to_string(dropped);
  if (span > 0) text += " (" + format_rate(per_second(dropped, span)) + "/s)";
  text += ":";
  bool first = true;
  for (const TopDropRow& row : device.drops) {
    text += (first ? " " : ", ") + printable(row.reason) + " " + std::to_string(row.delta);
    first = false;
  }
  return text;
}

// The rows that lhist would print: from the first to the last CPU with packets
// (first > last when none had any: a device asked for by --device may be idle).
std::pair<std::size_t, std::size_t> busy_range(const TopDeviceRows& device) {
  std::size_t first = device.cpus.size();
  std::size_t last = 0;
  for (std::size_t i = 0; i < device.cpus.size(); ++i) {
    if (device.cpus[i].delta.packets == 0) continue;
    first = std::min(first, i);
    last = i;
  }
  if (first == device.cpus.size()) return {1, 0};  // none: an empty range
  return {first, last};
}

}  // namespace

std::string format_rate(double per_second) {
  return printf_string(per_second < 100 ? "%.1f" : "%.0f", per_second);
}

std::string format_bytes(double bytes) {
  static constexpr const char* kUnits[] = {"kB", "MB", "GB", "TB", "PB", "EB"};
  if (bytes < 1000) return printf_string("%.0f B", bytes);
  int unit = -1;
  while (bytes >= 1000 && unit + 1 < 6) {
    bytes /= 1000;
    ++unit;
  }
  return printf_string("%.1f ", bytes) + kUnits[unit];
}

std::string fit_to_width(const std::string& line, unsigned columns) {
  unsigned seen = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) continue;  // continuation
    if (seen++ == columns) return line.substr(0, i);
  }
  return line;
}

std::string render_histogram(const RateTable& table, const HistogramLayout& layout) {
  const unsigned width = std::max(layout.width, kMinWidth);
  std::string out;
  const auto line = [&](const std::string& text) { out += fit_to_width(text, width) + "\n"; };

  std::string title =
      (table.device ? "device " + printable(*table.device) + " by CPU, RX queue and drop reason"
                    : std::string("packets per device and CPU")) +
      " over " + format_span(table.span_seconds) + ", from " + printable(layout.source);
  if (!layout.hint.empty()) title += "; " + layout.hint;
  line(title);

  // One layout for the whole frame, so that the bars of all devices align.
  std::size_t label_width = 0;
  std::size_t count_width = 1;
  std::size_t idle = 0;
  for (const TopDeviceRows& device : table.devices) {
    if (!shown(table, device)) {
      ++idle;
      continue;
    }
    const auto [first, last] = busy_range(device);
    for (std::size_t i = first; i <= last; ++i) {
      label_width = std::max(label_width, row_label(device.cpus[i].cpu).size());
      count_width = std::max(count_width, std::to_string(device.cpus[i].delta.packets).size());
    }
  }
  // label, space, count, " |", bar, "|"
  const std::size_t fixed = label_width + 1 + count_width + 3;
  const std::size_t bar_width = width > fixed ? width - fixed : 1;

  for (const TopDeviceRows& device : table.devices) {
    if (!shown(table, device)) continue;
    out += "\n";
    line(device_title(device, table.span_seconds));
    if (!device.drops.empty() && !table.device) line(drops_line(device, table.span_seconds));
    const auto [first, last] = busy_range(device);
    std::uint64_t most = 0;
    for (const TopCpuRow& row : device.cpus) most = std::max(most, row.delta.packets);
    for (std::size_t i = first; i <= last; ++i) {
      const TopCpuRow& row = device.cpus[i];
      // Rounded to the nearest '@', as bpftrace draws them.
      const auto bar = static_cast<std::size_t>(
          std::llround(static_cast<double>(row.delta.packets) * static_cast<double>(bar_width) /
                       static_cast<double>(most)));
      line(pad_right(row_label(row.cpu), label_width) + " " +
           pad_left(std::to_string(row.delta.packets), count_width) + " |" + std::string(bar, '@') +
           std::string(bar_width - bar, ' ') + "|");
    }
    if (table.device) {
      for (const std::string& detail : device_detail_lines(table, device, width)) line(detail);
    }
  }
  if (table.device && table.devices.empty()) {
    out += "\n";
    line("no device " + printable(*table.device) + " in this reading");
    return out;
  }
  if (idle == table.devices.size()) {
    out += "\n";
    line(table.devices.empty() ? "no devices yet" : "no packets in this span");
  }
  if (idle > 0 && idle < table.devices.size()) {
    out += "\n";
    line(std::to_string(idle) + (idle == 1 ? " device" : " devices") + " without packets");
  }
  return out;
}

}  // namespace netif_rx
