#include "web/http_server.h"

#include <CivetServer.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "sys/privileges.h"
#include "sys/stack_pages.h"
#include "util/build_info.h"
#include "util/log.h"
#include "util/unique_fd.h"
#include "web/civetweb_tls.h"
#include "web/http_handlers.h"
#include "web/ipv6_listener.h"
#include "web/landing_page.h"
#include "web/listener_tuning.h"
#include "web/process_listeners.h"
#include "web/systemd_socket.h"
#include "web/tls_context.h"
#include "web/web_config_watcher.h"

namespace netif_rx {
namespace {

// How the front holds up against clients that connect and say nothing or
// dribble their request (see docs/security.md, "Hostile clients"). civetweb serves one
// connection per worker thread: a connection that sends nothing after its
// handshake is held back by the kernel (TCP_DEFER_ACCEPT) for
// kDeferAcceptSeconds and never takes a worker in that time; one that sends a
// request slowly takes a worker for at most kRequestTimeoutMs.
constexpr int kWorkerThreads = 256;
constexpr int kRequestTimeoutMs = 5000;
constexpr int kDeferAcceptSeconds = 300;
// Connections the kernel may hold (deferred or waiting for accept) per
// listener; Linux caps it at net.core.somaxconn (4096 by default).
constexpr int kListenBacklog = 16384;
// Connections accepted but not yet taken by a worker.
constexpr int kConnectionQueue = 256;

// Connects to a listener and hangs up at once.
void poke_listener(ListenAddress address) {
  if (address.host.empty()) address.host = "127.0.0.1";
  if (address.host == "::") address.host = "::1";
  const SocketAddress sa = socket_address_of(address);
  UniqueFd fd(::socket(sa.storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return;
  (void)::connect(fd.get(), sa.get(), sa.length);
}

// /metrics (503 until started), the landing page, /-/healthy and /-/ready.
std::vector<std::unique_ptr<ReadOnlyHandler>> make_handlers(
    const std::string& telemetry_path,
    std::vector<std::shared_ptr<prometheus::Collectable>> collectables,
    const std::function<Readiness()>& readiness) {
  std::vector<std::unique_ptr<ReadOnlyHandler>> handlers;
  handlers.push_back(std::make_unique<MetricsHandler>(
      telemetry_path, std::move(collectables), [readiness]() -> std::string {
        const Readiness now = readiness ? readiness() : Readiness{"not started", false};
        if (now.starting.empty()) return {};
        return "Not ready: starting (" + now.starting +
               "); metrics are served once the probe is attached, the first poll is done and "
               "privileges are dropped\n";
      }));

  const std::string landing = landing_page(telemetry_path, build_info());
  handlers.push_back(std::make_unique<TextHandler>("/", [landing] {
    return TextHandler::Response{200, "text/html; charset=utf-8", landing};
  }));
  // The probe paths answer without credentials (see serve_without_credentials).
  auto healthy = std::make_unique<TextHandler>("/-/healthy", [] {
    return TextHandler::Response{200, "text/plain; charset=utf-8", "Healthy\n"};
  });
  healthy->serve_without_credentials();
  handlers.push_back(std::move(healthy));
  auto ready = std::make_unique<TextHandler>("/-/ready", [readiness] {
    const Readiness now = readiness ? readiness() : Readiness{"not started", false};
    std::string body = "Ready\n";
    if (!now.starting.empty()) {
      body = "Not ready: starting (" + now.starting + ")\n";
    } else if (!now.fresh) {
      body = "Not ready: no successful poll within 3 poll intervals + 1s\n";
    }
    return TextHandler::Response{now.starting.empty() && now.fresh ? 200 : 503,
                                 "text/plain; charset=utf-8", std::move(body)};
  });
  ready->serve_without_credentials();
  handlers.push_back(std::move(ready));
  return handlers;
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
  raise_open_file_limit();
  if (!options_.systemd_sockets.empty()) {
    options_.addresses = systemd_socket_placeholders(options_.systemd_sockets.size());
  }
  std::string ports;
  for (const auto& address : options_.addresses) {
    check_can_listen(address);
    ports += (ports.empty() ? "" : ",") +
             (address.ipv6 ? std::string(kIpv6StandIn) : address.civetweb_port()) +
             (tls ? "s" : "");
  }
  const std::vector<std::string> civet_options{
      "listening_ports",    ports,
      "num_threads",        std::to_string(kWorkerThreads),
      "request_timeout_ms", std::to_string(kRequestTimeoutMs),
      "listen_backlog",     std::to_string(kListenBacklog),
      "connection_queue",   std::to_string(kConnectionQueue),
      "enable_keep_alive",  "no"};
  CivetCallbacks callbacks{};
  // A worker closes its connection from a shallow frame: the stack pages its
  // request touched below it go back to the kernel (sys/stack_pages.h).
  callbacks.connection_close = [](const mg_connection*) { release_stack_below_caller(); };
  // No server thread needs a capability: each gives its own up as it starts,
  // so that the process-wide drop at the end of the start-up need not signal
  // it (civetweb's poll() fails on EINTR and the request in flight with it).
  callbacks.init_thread = [](const mg_context*, int) -> void* {
    (void)drop_this_thread_capabilities();
    return nullptr;
  };
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
  take_over_listeners();

  handlers_ = make_handlers(options_.telemetry_path, std::move(collectables), options_.readiness);
  for (const auto& handler : handlers_) {
    handler->set_web_config(web_.get());
    server_->addHandler(handler->path(), handler.get());
  }
  // Only now: a connection waiting on a passed socket must find the handlers.
  if (!options_.systemd_sockets.empty()) {
    options_.addresses = adopt_systemd_sockets(*server_, std::move(options_.systemd_sockets));
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

// Puts the IPv6 sockets in their stand-ins' places, learns the real ports,
// and defers accept on every listener.
void HttpServer::take_over_listeners() {
  const std::vector<int> civet_ports = server_->getListeningPorts();
  for (std::size_t i = 0; i < options_.addresses.size() && i < civet_ports.size(); ++i) {
    const ListenAddress& address = options_.addresses[i];
    int port = civet_ports[i];
    if (address.ipv6) {
      const UniqueFd socket = listen_ipv6(address, kListenBacklog);
      if (!replace_listener(port, socket)) {
        throw ListenError("cannot listen on " + address.text +
                          ": the stand-in listener was not found");
      }
      ProcessListener bound;
      port = describe_listener(socket.get(), bound) ? bound.port : address.port;
    }
    ports_.push_back(port);
  }
  const int deferred = defer_accept_on_listeners(ports_, kDeferAcceptSeconds);
  log::debug("deferred accept set",
             {{"listening_sockets", deferred}, {"seconds", kDeferAcceptSeconds}});
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

}  // namespace netif_rx
