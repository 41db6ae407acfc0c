// Questions about a parsed scrape (http_client.h's Series) by label.
#pragma once

#include <map>
#include <set>
#include <string>

#include "http_client.h"

namespace netif_rx::test {

using Labels = std::map<std::string, std::string>;

// Splits a series key into its metric name and labels.
std::string metric_of(const std::string& key);
Labels labels_of(const std::string& key);

// Sum of the values of `metric` whose labels include all of `match`.
double sum_where(const Series& series, const std::string& metric, const Labels& match);
// Number of series of `metric` whose labels include all of `match`.
int count_where(const Series& series, const std::string& metric, const Labels& match);

// Device names of netif_rx_packets_total (in `netns` when given).
std::set<std::string> devices_of(const Series& series, const std::string& netns = "");

// Sum of every netif_rx_exporter_poll_errors_total series.
double poll_errors(const Series& series);

}  // namespace netif_rx::test
