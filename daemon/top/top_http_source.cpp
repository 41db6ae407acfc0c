// A running exporter's /metrics as top's source: no second probe.
#include "top/http_fetch.h"
#include "top/top_source.h"

namespace netif_rx {
namespace {

class HttpSource final : public TopSource {
 public:
  HttpSource(std::string url, HttpClientOptions client)
      : url_(std::move(url)), client_(std::move(client)) {}

  TopReading read() override {
    HttpResponse response;
    try {
      response = http_get(url_, client_);
    } catch (const HttpFetchError& e) {
      throw TopSourceError("--from " + url_ + ": " + e.what());
    }
    const auto taken = std::chrono::steady_clock::now();
    if (response.status != 200) {
      throw TopSourceError("--from " + url_ + ": the server answered " +
                           std::to_string(response.status) + " " + response.reason +
                           "; is this the exporter's metrics path?");
    }
    try {
      TopReading reading = reading_from_exposition(response.body);
      reading.taken = taken;
      return reading;
    } catch (const ExpositionParseError& e) {
      throw TopSourceError("--from " + url_ + ": " + e.what());
    }
  }

  std::string describe() const override { return url_; }

 private:
  std::string url_;
  HttpClientOptions client_;
};

}  // namespace

std::unique_ptr<TopSource> make_http_source(const std::string& url,
                                            const HttpClientOptions& client) {
  return std::make_unique<HttpSource>(url, client);
}

}  // namespace netif_rx
