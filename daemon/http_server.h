// The HTTP server: /metrics (the telemetry path), a landing page on /,
// /-/healthy and /-/ready.
#pragma once

#include <prometheus/collectable.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "listen_address.h"

class CivetServer;

namespace netif_rx {

class ReadOnlyHandler;

struct HttpOptions {
  std::vector<ListenAddress> addresses;
  std::string telemetry_path = "/metrics";
  std::function<bool()> ready;  // true when the probe is attached and polls are fresh
};

class HttpServer {
 public:
  // Binds every address; throws ListenError with the fix when one can't be.
  HttpServer(HttpOptions options,
             std::vector<std::shared_ptr<prometheus::Collectable>> collectables);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  std::vector<int> listening_ports() const;

 private:
  HttpOptions options_;
  std::vector<std::unique_ptr<ReadOnlyHandler>> handlers_;
  std::unique_ptr<CivetServer> server_;  // last: stops before the handlers go
};

}  // namespace netif_rx
