#include "util/duration.h"

#include <array>
#include <cstdint>
#include <limits>

namespace netif_rx {
namespace {

struct Unit {
  std::string_view suffix;
  std::int64_t millis;
};

// Largest first, as Prometheus requires.
constexpr std::array<Unit, 7> kUnits{{
    {"y", 365LL * 24 * 3600 * 1000},
    {"w", 7LL * 24 * 3600 * 1000},
    {"d", 24LL * 3600 * 1000},
    {"h", 3600LL * 1000},
    {"m", 60LL * 1000},
    {"s", 1000},
    {"ms", 1},
}};

// Index of the unit at the start of `text`, preferring "ms" over "m".
std::optional<std::size_t> match_unit(std::string_view text) {
  if (text.substr(0, 2) == "ms") return 6;
  for (std::size_t i = 0; i < kUnits.size(); ++i) {
    if (text.substr(0, kUnits[i].suffix.size()) == kUnits[i].suffix) return i;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Milliseconds> parse_duration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (text == "0") return Milliseconds{0};

  std::int64_t total = 0;
  std::size_t next_allowed_unit = 0;
  while (!text.empty()) {
    std::size_t digits = 0;
    std::int64_t value = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
      if (value > (std::numeric_limits<std::int64_t>::max() - 9) / 10) return std::nullopt;
      value = value * 10 + (text[digits] - '0');
      ++digits;
    }
    if (digits == 0) return std::nullopt;
    text.remove_prefix(digits);

    auto unit = match_unit(text);
    if (!unit || *unit < next_allowed_unit) return std::nullopt;
    text.remove_prefix(kUnits[*unit].suffix.size());
    next_allowed_unit = *unit + 1;

    if (value > (std::numeric_limits<std::int64_t>::max() - total) / kUnits[*unit].millis) {
      return std::nullopt;
    }
    total += value * kUnits[*unit].millis;
  }
  return Milliseconds{total};
}

std::string format_duration(Milliseconds duration) {
  std::int64_t remaining = duration.count();
  if (remaining <= 0) return "0s";
  std::string out;
  for (const auto& unit : kUnits) {
    if (remaining >= unit.millis) {
      out += std::to_string(remaining / unit.millis);
      out += unit.suffix;
      remaining %= unit.millis;
    }
  }
  return out;
}

}  // namespace netif_rx
