// Where `top` reads its counters: the probe it loads itself, or a running
// exporter's /metrics.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "config/config.h"
#include "top/http_fetch.h"
#include "top/top_reading.h"
#include "top/top_source_error.h"

namespace netif_rx {

class TopSource {
 public:
  virtual ~TopSource() = default;
  // The cumulative counters now. Throws TopSourceError.
  virtual TopReading read() = 0;
  // For titles: "the probe" or the URL.
  virtual std::string describe() const = 0;
};

// Loads and attaches the probe as the daemon does (Probe::load, MapReader,
// Poller::poll_once). Throws ProbeError or std::runtime_error.
std::unique_ptr<TopSource> make_probe_source(const Config& config, const std::string& btf_path);

// Reads a running exporter's metrics page at `url` (http:// or https://).
std::unique_ptr<TopSource> make_http_source(const std::string& url,
                                            const HttpClientOptions& client);

}  // namespace netif_rx
