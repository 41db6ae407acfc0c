#include "raw_scrape.h"

#include <set>
#include <sstream>
#include <string>

namespace netif_rx::test {

RawScrape raw_scrape(ExporterProcess& exporter) {
  RawScrape scrape;
  const HttpResponse response = exporter.get("/metrics");
  std::set<std::string> packet_series;
  std::istringstream lines(response.body);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.rfind(' ');
    if (space == std::string::npos) continue;
    const std::string key = line.substr(0, space);
    const double value = std::stod(line.substr(space + 1));
    const std::string family = key.substr(0, key.find('{'));
    if (family == "netif_rx_packets_total") {
      if (!packet_series.insert(key).second) ++scrape.duplicates;
      scrape.exported += value;
    } else if (family == "netif_rx_untracked_packets_total") {
      scrape.untracked += value;
    } else if (family == "netif_rx_removed_packets_total") {
      scrape.removed += value;
    } else if (family == "netif_rx_counted_packets_total") {
      scrape.counted += value;
    }
  }
  scrape.series = parse_exposition(response.body);
  return scrape;
}

}  // namespace netif_rx::test
