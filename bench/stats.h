// Order statistics of repeated measurements.
#pragma once

#include <cstddef>
#include <vector>

namespace netif_rx::bench {

struct Summary {
  double median = 0;
  double p25 = 0;
  double p75 = 0;
  int samples = 0;
};

Summary summarize(std::vector<double> values);

// Rounds that cycle through `orders` arrangements of a measurement (round r
// in arrangement r % orders; the attach orders of programs measured
// together): the median of each arrangement's rounds, and `median` the mean
// of those medians, so that every arrangement weighs the same; `p25` and
// `p75` the least and the largest of them. A median over all rounds would
// fall in whichever arrangement's values lie in the middle, where the
// arrangement shifts every value (the program attached first pays for the
// others' warm caches). NaN marks a round without a value (skipped).
Summary summarize_by_order(const std::vector<double>& by_round, std::size_t orders);

}  // namespace netif_rx::bench
