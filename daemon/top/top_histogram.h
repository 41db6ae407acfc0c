// The text view of a rate table: per device, one row per CPU with its
// packets and a bar, in the spirit of bpftrace's lhist output. Pure.
#pragma once

#include <string>

#include "top/top_rate_table.h"

namespace netif_rx {

struct HistogramLayout {
  unsigned width = 80;  // columns; no line is longer (a floor of 20)
  std::string source;   // "the probe" or the URL
  std::string hint;     // appended to the title, e.g. "every 1s, Ctrl-C quits"
};

// The whole frame, each line ending in '\n'. Devices without packets in the
// span are counted in a last line, not drawn; a device's rows run from its
// first to its last CPU with packets, as lhist's buckets do.
std::string render_histogram(const RateTable& table, const HistogramLayout& layout);

// "8.4", "1500": a rate per second, one decimal below 100.
std::string format_rate(double per_second);

// "512 B", "1.5 kB", "2.3 MB": decimal units.
std::string format_bytes(double bytes);

// Keeps the first `columns` characters (UTF-8 code points) of `line`.
std::string fit_to_width(const std::string& line, unsigned columns);

}  // namespace netif_rx
