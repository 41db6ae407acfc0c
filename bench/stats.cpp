#include "stats.h"

#include <algorithm>
#include <cmath>

namespace netif_rx::bench {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(position);
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

}  // namespace

Summary summarize(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return {quantile(values, 0.5), quantile(values, 0.25), quantile(values, 0.75),
          static_cast<int>(values.size())};
}

Summary summarize_by_order(const std::vector<double>& by_round, std::size_t orders) {
  if (orders == 0) return {};
  std::vector<double> medians;
  int samples = 0;
  for (std::size_t order = 0; order < orders; ++order) {
    std::vector<double> rounds;
    for (std::size_t round = order; round < by_round.size(); round += orders)
      if (!std::isnan(by_round[round])) rounds.push_back(by_round[round]);
    if (!rounds.empty()) medians.push_back(summarize(rounds).median);
    samples += static_cast<int>(rounds.size());
  }
  if (medians.empty()) return {};
  double sum = 0;
  for (double median : medians) sum += median;
  const auto [least, largest] = std::minmax_element(medians.begin(), medians.end());
  return {sum / static_cast<double>(medians.size()), *least, *largest, samples};
}

}  // namespace netif_rx::bench
