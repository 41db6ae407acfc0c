#include "web/http_server.h"

#include <CivetServer.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "util/build_info.h"
#include "util/log.h"
#include "util/unique_fd.h"
#include "web/civetweb_tls.h"
#include "web/http_handlers.h"
#include "web/landing_page.h"
#include "web/tls_context.h"
#include "web/web_config_watcher.h"

namespace netif_rx {
namespace {

// Connects to a listener and hangs up at once.
void poke_listener(const ListenAddress& address) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(address.port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (!address.host.empty()) ::inet_pton(AF_INET, address.host.c_str(), &sa.sin_addr);
  (void)::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa);
}

}  // namespace

HttpServer::HttpServer(HttpOptions options,
                       std::vector<std::shared_ptr<prometheus::Collectable>> collectables)
    : options_(std::move(options)),
      web_(std::make_unique<WebConfigWatcher>(options_.web_config_file)) {
  const bool tls = web_->tls();
  if (tls && mg_check_feature(2) != 2) {
    throw TlsError("the web configuration asks for TLS but this civetweb was built without it");
  }
  if (tls) load_civetweb_tls_compat();
  std::string ports;
  for (const auto& address : options_.addresses) {
    check_can_listen(address);
    ports += (ports.empty() ? "" : ",") + address.civetweb_port() + (tls ? "s" : "");
  }
  const std::vector<std::string> civet_options{
      "listening_ports",   ports, "num_threads",           "4",   "request_timeout_ms", "10000",
      "enable_keep_alive", "no",  "keep_alive_timeout_ms", "5000"};
  CivetCallbacks callbacks{};
  if (tls) {
    WebConfigWatcher* web = web_.get();
    tls_source_ = [web] { return web->newest_tls_context(); };
    callbacks.init_ssl = &HttpServer::init_ssl;
  }
  try {
    server_ = std::make_unique<CivetServer>(civet_options, &callbacks, this);
  } catch (const CivetException& e) {
    throw ListenError("cannot start the HTTP server on " + ports + ": " + e.what() +
                      "; check --web.listen-address");
  }

  handlers_.push_back(
      std::make_unique<MetricsHandler>(options_.telemetry_path, std::move(collectables)));

  const std::string landing = landing_page(options_.telemetry_path, build_info());
  handlers_.push_back(std::make_unique<TextHandler>("/", [landing] {
    return TextHandler::Response{200, "text/html; charset=utf-8", landing};
  }));
  handlers_.push_back(std::make_unique<TextHandler>("/-/healthy", [] {
    return TextHandler::Response{200, "text/plain; charset=utf-8", "Healthy\n"};
  }));
  auto ready_check = options_.ready;
  handlers_.push_back(std::make_unique<TextHandler>("/-/ready", [ready_check] {
    if (ready_check && ready_check()) {
      return TextHandler::Response{200, "text/plain; charset=utf-8", "Ready\n"};
    }
    return TextHandler::Response{503, "text/plain; charset=utf-8",
                                 "Not ready: probe not attached or polls are stale\n"};
  }));
  for (const auto& handler : handlers_) {
    handler->set_web_config(web_.get());
    server_->addHandler(handler->path(), handler.get());
  }

  for (const auto& address : options_.addresses) {
    log::info(
        "listening",
        {{"address", address.text}, {"telemetry_path", options_.telemetry_path}, {"tls", tls}});
  }
}

// civetweb calls this from mg_start() with its SSL_CTX and the CivetServer as
// user data; the CivetServer's user context is this HttpServer.
int HttpServer::init_ssl(void* ssl_ctx, void* user_data) {
  const auto* civet = static_cast<const CivetServer*>(user_data);
  const auto* self = civet ? static_cast<const HttpServer*>(civet->getUserContext()) : nullptr;
  if (self == nullptr || !self->tls_source_) return -1;
  const TlsContext current = self->tls_source_();
  return install_tls_rotation(static_cast<ssl_ctx_st*>(ssl_ctx), current, &self->tls_source_) ? 1
                                                                                              : -1;
}

void HttpServer::reload_web_config() { web_->reload(); }

HttpServer::~HttpServer() {
  if (!server_) return;
  // civetweb 1.15's mg_stop() sleeps in poll() for up to 2 s before it sees
  // the stop flag; a connection to each listener wakes it at once.
  std::atomic<bool> closed{false};
  std::thread waker([&] {
    while (!closed.load()) {
      for (const auto& address : options_.addresses) poke_listener(address);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  server_->close();
  closed = true;
  waker.join();
}

std::vector<int> HttpServer::listening_ports() const { return server_->getListeningPorts(); }

}  // namespace netif_rx
