#include "pipeline/cpu_list.h"

#include <algorithm>
#include <charconv>
#include <thread>

#include "util/read_file.h"

namespace netif_rx {
namespace {

std::optional<unsigned> parse_number(std::string_view text) {
  unsigned value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::vector<unsigned>> parse_cpu_list(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::vector<unsigned> cpus;
  if (text.empty()) return cpus;
  while (true) {
    const auto comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const auto dash = item.find('-');
    auto first = parse_number(item.substr(0, dash));
    auto last = dash == std::string_view::npos ? first : parse_number(item.substr(dash + 1));
    if (!first || !last || *last < *first || *last - *first > 65536) return std::nullopt;
    // Counts up to `last` inclusive without `cpu <= last`, which never ends
    // when `last` is the largest unsigned.
    for (unsigned cpu = *first;; ++cpu) {
      cpus.push_back(cpu);
      if (cpu == *last) break;
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return cpus;
}

std::vector<unsigned> present_cpus(const std::string& path) {
  if (const auto text = read_file(path, 4096)) {
    if (auto cpus = parse_cpu_list(*text); cpus && !cpus->empty()) return *cpus;
  }
  std::vector<unsigned> cpus(std::max(1U, std::thread::hardware_concurrency()));
  for (unsigned i = 0; i < cpus.size(); ++i) cpus[i] = i;
  return cpus;
}

}  // namespace netif_rx
