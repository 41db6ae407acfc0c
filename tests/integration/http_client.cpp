#include "http_client.h"

#include <chrono>

#include "top/exposition_parser.h"

namespace netif_rx::test {
namespace {

std::string escaped(const std::string& value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out;
}

}  // namespace

netif_rx::HttpResponse http_get(int port, const std::string& path) {
  try {
    netif_rx::HttpClientOptions options;
    options.timeout = std::chrono::seconds(5);
    return netif_rx::http_get("http://127.0.0.1:" + std::to_string(port) + path, options);
  } catch (const HttpFetchError&) {
    return {};
  }
}

Series parse_exposition(const std::string& text) {
  Series series;
  for (const auto& sample : parse_exposition_text(text)) {
    series[series_key(sample.name, sample.labels)] = sample.value;
  }
  return series;
}

std::string metric_of(const std::string& key) { return key.substr(0, key.find('{')); }

Labels labels_of(const std::string& key) {
  const auto samples = parse_exposition_text(key + " 0\n");
  return samples.empty() ? Labels{} : samples.front().labels;
}

std::string series_key(const std::string& name, const Labels& labels) {
  if (labels.empty()) return name;
  std::string key = name + "{";
  bool first = true;
  for (const auto& [label, value] : labels) {
    key += (first ? "" : ",") + label + "=\"" + escaped(value) + "\"";
    first = false;
  }
  return key + "}";
}

}  // namespace netif_rx::test
