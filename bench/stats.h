// Order statistics of repeated measurements.
#pragma once

#include <vector>

namespace netif_rx::bench {

struct Summary {
  double median = 0;
  double p25 = 0;
  double p75 = 0;
  int samples = 0;
};

Summary summarize(std::vector<double> values);

}  // namespace netif_rx::bench
