// Builders of prometheus-cpp's plain metric values, for the collectors that
// build their families from data they already hold.
#pragma once

#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>
#include <prometheus/metric_type.h>

#include <concepts>
#include <string>
#include <vector>

namespace netif_rx {

using MetricLabels = std::vector<prometheus::ClientMetric::Label>;

inline prometheus::MetricFamily metric_family(std::string name, std::string help,
                                              prometheus::MetricType type) {
  prometheus::MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = type;
  return family;
}

inline prometheus::ClientMetric counter_sample(MetricLabels labels, double value) {
  prometheus::ClientMetric metric;
  metric.label = std::move(labels);
  metric.counter.value = value;
  return metric;
}

// A kernel counter (__u64, std::uint64_t): exact up to 2^53.
template <std::integral Integer>
prometheus::ClientMetric counter_sample(MetricLabels labels, Integer value) {
  return counter_sample(std::move(labels), static_cast<double>(value));
}

inline prometheus::ClientMetric gauge_sample(MetricLabels labels, double value) {
  prometheus::ClientMetric metric;
  metric.label = std::move(labels);
  metric.gauge.value = value;
  return metric;
}

// A family of one sample without labels.
inline prometheus::MetricFamily single_sample_family(std::string name, std::string help,
                                                     prometheus::MetricType type, double value) {
  auto family = metric_family(std::move(name), std::move(help), type);
  family.metric.push_back(type == prometheus::MetricType::Counter ? counter_sample({}, value)
                                                                  : gauge_sample({}, value));
  return family;
}

}  // namespace netif_rx
