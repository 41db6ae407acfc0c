// One scrape of /metrics read line by line, so that duplicate label sets stay
// visible (a parsed Series would merge them), with the sums of the packet
// families that the invariant "counted = exported + untracked + removed" is
// about.
#pragma once

#include "exporter_process.h"
#include "http_client.h"

namespace netif_rx::test {

struct RawScrape {
  int duplicates = 0;   // netif_rx_packets_total lines whose label set came before
  double exported = 0;  // sum of netif_rx_packets_total
  double untracked = 0;
  double removed = 0;
  double counted = 0;
  Series series;
};

RawScrape raw_scrape(ExporterProcess& exporter);

}  // namespace netif_rx::test
