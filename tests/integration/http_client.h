// The tests' view of the exporter over HTTP, through the core's own client
// (top/http_fetch.h) and exposition parser (top/exposition_parser.h).
#pragma once

#include <map>
#include <string>

#include "top/http_fetch.h"

namespace netif_rx::test {

// One GET of http://127.0.0.1:port/path; status 0 when no response came.
netif_rx::HttpResponse http_get(int port, const std::string& path);

// Parsed exposition text: series key "name{a=\"x\",b=\"y\"}" (labels sorted,
// values escaped as in the exposition format) to value.
using Series = std::map<std::string, double>;
Series parse_exposition(const std::string& text);

using Labels = std::map<std::string, std::string>;

// The metric name and the labels of a series key.
std::string metric_of(const std::string& key);
Labels labels_of(const std::string& key);

// The key of a series, labels sorted by name.
std::string series_key(const std::string& name, const Labels& labels);

}  // namespace netif_rx::test
