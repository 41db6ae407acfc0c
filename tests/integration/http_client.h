// A minimal HTTP/1.0 client for tests: one GET to 127.0.0.1.
#pragma once

#include <map>
#include <string>

namespace netif_rx::test {

struct HttpResponse {
  int status = 0;  // 0: no connection
  std::string body;
};

HttpResponse http_get(int port, const std::string& path, const std::string& method = "GET");

// Parsed exposition text: series key "name{a=\"x\",b=\"y\"}" (labels sorted)
// to value.
using Series = std::map<std::string, double>;
Series parse_exposition(const std::string& text);

using Labels = std::map<std::string, std::string>;

// Splits a series line's name{a="x",b="y"} into its metric name and labels
// (label values here never hold '",').
std::string metric_of(const std::string& key);
Labels labels_of(const std::string& key);

// The key of a series, labels sorted by name.
std::string series_key(const std::string& name, std::map<std::string, std::string> labels);

}  // namespace netif_rx::test
