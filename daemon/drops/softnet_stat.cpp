#include "drops/softnet_stat.h"

#include <charconv>

namespace netif_rx {
namespace {

constexpr std::size_t kMaxRows = 8192;
constexpr std::size_t kMaxLineBytes = 512;
constexpr unsigned kMaxCpu = 1U << 16;

bool parse_hex(std::string_view word, std::uint32_t& value) {
  if (word.empty() || word.size() > 8) return false;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value, 16);
  return error == std::errc() && end == word.data() + word.size();
}

}  // namespace

std::vector<SoftnetRow> parse_softnet_stat(std::string_view text) {
  std::vector<SoftnetRow> rows;
  unsigned position = 0;
  while (!text.empty() && rows.size() < kMaxRows) {
    const std::size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    const unsigned line_position = position++;
    if (line.size() > kMaxLineBytes) continue;

    std::uint32_t words[13] = {};
    std::size_t count = 0;
    bool ok = true;
    std::string_view rest = line;
    while (ok) {
      const std::size_t start = rest.find_first_not_of(' ');
      if (start == std::string_view::npos) break;
      rest.remove_prefix(start);
      const std::size_t end = rest.find(' ');
      const std::string_view word = rest.substr(0, end);
      rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
      std::uint32_t value = 0;
      ok = parse_hex(word, value);
      if (ok && count < 13) words[count] = value;
      ++count;
    }
    if (!ok || count < 2) continue;
    const unsigned cpu = count >= 13 ? words[12] : line_position;
    if (cpu >= kMaxCpu) continue;
    rows.push_back({cpu, words[1]});
  }
  return rows;
}

void SoftnetBacklogDrops::update(const std::vector<SoftnetRow>& rows) {
  for (const SoftnetRow& row : rows) {
    if (row.cpu >= totals_.size()) {
      totals_.resize(row.cpu + 1);
      last_.resize(row.cpu + 1);
      seen_.resize(row.cpu + 1);
    }
    if (!seen_[row.cpu]) {
      totals_[row.cpu] = row.dropped;
      seen_[row.cpu] = true;
    } else {
      totals_[row.cpu] += static_cast<std::uint32_t>(row.dropped - last_[row.cpu]);
    }
    last_[row.cpu] = row.dropped;
  }
}

}  // namespace netif_rx
