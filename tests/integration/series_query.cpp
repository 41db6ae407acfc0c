#include "series_query.h"

namespace netif_rx::test {

namespace {

bool matches(const std::string& key, const std::string& metric, const Labels& match) {
  if (metric_of(key) != metric) return false;
  const Labels labels = labels_of(key);
  for (const auto& [name, value] : match) {
    const auto found = labels.find(name);
    if (found == labels.end() || found->second != value) return false;
  }
  return true;
}

}  // namespace

double sum_where(const Series& series, const std::string& metric, const Labels& match) {
  double sum = 0;
  for (const auto& [key, value] : series) {
    if (matches(key, metric, match)) sum += value;
  }
  return sum;
}

int count_where(const Series& series, const std::string& metric, const Labels& match) {
  int count = 0;
  for (const auto& [key, value] : series) {
    if (matches(key, metric, match)) ++count;
  }
  return count;
}

std::set<std::string> devices_of(const Series& series, const std::string& netns) {
  std::set<std::string> devices;
  for (const auto& [key, value] : series) {
    if (metric_of(key) != "netif_rx_packets_total") continue;
    const Labels labels = labels_of(key);
    if (!netns.empty() && (!labels.count("netns") || labels.at("netns") != netns)) continue;
    if (labels.count("device")) devices.insert(labels.at("device"));
  }
  return devices;
}

double poll_errors(const Series& series) {
  return sum_where(series, "netif_rx_exporter_poll_errors_total", {});
}

}  // namespace netif_rx::test
