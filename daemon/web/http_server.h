// The HTTP server: /metrics (the telemetry path), a landing page on /,
// /-/healthy and /-/ready. It starts before the probe is loaded: /-/healthy
// answers from then on, /metrics and /-/ready answer 503 until startup is done.
#pragma once

#include <prometheus/collectable.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "util/unique_fd.h"
#include "web/listen_address.h"

class CivetServer;
struct ssl_ctx_st;

namespace netif_rx {

class ReadOnlyHandler;
class WebConfigWatcher;

// What /metrics and /-/ready tell.
struct Readiness {
  // The step startup is in ("loading and attaching the probe", ...); empty
  // once the probe is attached, the first poll is done and privileges are
  // dropped. Until then /metrics and /-/ready answer 503 naming it.
  std::string starting;
  // Started and the last successful poll is recent: /-/ready answers 200.
  bool fresh = false;
};

struct HttpOptions {
  std::vector<ListenAddress> addresses;
  std::string telemetry_path = "/metrics";
  std::function<Readiness()> readiness;  // unset: never ready
  // --web.config.file: TLS, basic auth, headers; re-read when it changes.
  std::optional<std::string> web_config_file;
  // --web.systemd-socket: serve these instead of `addresses` (see systemd_socket.h).
  std::vector<UniqueFd> systemd_sockets;
};

class HttpServer {
 public:
  // Binds every address; throws ListenError with the fix when one can't be,
  // ConfigError or TlsError when the web configuration can't be used.
  HttpServer(HttpOptions options,
             std::vector<std::shared_ptr<prometheus::Collectable>> collectables);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Re-reads --web.config.file now.
  void reload_web_config();

 private:
  static int init_ssl(void* ssl_ctx, void* user_data);
  void take_over_listeners();

  HttpOptions options_;
  std::unique_ptr<WebConfigWatcher> web_;
  std::function<std::shared_ptr<ssl_ctx_st>()> tls_source_;
  std::vector<std::unique_ptr<ReadOnlyHandler>> handlers_;
  std::unique_ptr<CivetServer> server_;  // last: stops before the handlers go
  std::vector<int> ports_;               // as bound, in the order of options_.addresses
};

}  // namespace netif_rx
