// Questions about a parsed scrape (http_client.h's Series) by label.
#pragma once

#include <map>
#include <set>
#include <string>

#include "http_client.h"

namespace netif_rx::test {

// Sum of the values of `metric` whose labels include all of `match`.
double sum_where(const Series& series, const std::string& metric, const Labels& match);
// Number of series of `metric` whose labels include all of `match`.
int count_where(const Series& series, const std::string& metric, const Labels& match);

// Device names of netif_rx_packets_total (in `netns` when given).
std::set<std::string> devices_of(const Series& series, const std::string& netns = "");

// Sum of every netif_rx_exporter_poll_errors_total series.
double poll_errors(const Series& series);

}  // namespace netif_rx::test
