// The exporter's HTTP endpoints, as civetweb handlers.
#pragma once

#include <CivetServer.h>
#include <prometheus/collectable.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "web/render_thread.h"

namespace netif_rx {

class WebConfigWatcher;

// Answers GET and HEAD on exactly `path` through respond(); other paths that
// civetweb routes here (it matches by prefix) get 404, other methods 405.
class ReadOnlyHandler : public CivetHandler {
 public:
  explicit ReadOnlyHandler(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }
  // Every request then passes the web configuration: 500 while it is broken,
  // 401 without valid basic auth credentials, its headers on every answer.
  void set_web_config(WebConfigWatcher* web) { web_ = web; }
  // Kubernetes probes: answered without basic auth credentials or a client
  // certificate (kubelet sends neither); they tell nothing but liveness.
  void serve_without_credentials() { open_to_probes_ = true; }

  bool handleGet(CivetServer* server, mg_connection* conn) override;
  bool handleHead(CivetServer* server, mg_connection* conn) override;
  bool handlePost(CivetServer* server, mg_connection* conn) override;
  bool handlePut(CivetServer* server, mg_connection* conn) override;
  bool handleDelete(CivetServer* server, mg_connection* conn) override;
  bool handlePatch(CivetServer* server, mg_connection* conn) override;
  bool handleOptions(CivetServer* server, mg_connection* conn) override;

 protected:
  struct Response {
    int status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
  };
  // The answer; header lines of its own (each ending in CRLF) go to `headers`.
  virtual Response respond(mg_connection* conn, std::string& headers) = 0;

 private:
  bool serve(mg_connection* conn, bool with_body, bool allowed_method);

  std::string path_;
  WebConfigWatcher* web_ = nullptr;
  bool open_to_probes_ = false;
};

// The exposition of every collectable, in the text format, rendered on one
// thread of its own (web/render_thread.h); while `unavailable` returns a
// text, 503 with that text instead.
class MetricsHandler final : public ReadOnlyHandler {
 public:
  MetricsHandler(std::string path,
                 std::vector<std::shared_ptr<prometheus::Collectable>> collectables,
                 std::function<std::string()> unavailable)
      : ReadOnlyHandler(std::move(path)),
        collectables_(std::move(collectables)),
        unavailable_(std::move(unavailable)) {}

 protected:
  Response respond(mg_connection* conn, std::string& headers) override;

 private:
  // The text of every collectable in turn: write_text where a collectable
  // offers it (metrics/text_exposition.h), else its families serialized.
  // Runs on the render thread only.
  std::string render();

  std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;
  std::function<std::string()> unavailable_;
  std::size_t last_size_ = 0;  // of the last rendered text; the render thread's
  RenderThread render_thread_;
};

// A fixed answer, or one computed by a callback (health, readiness, landing page).
class TextHandler final : public ReadOnlyHandler {
 public:
  using Producer = std::function<Response()>;
  TextHandler(std::string path, Producer producer)
      : ReadOnlyHandler(std::move(path)), producer_(std::move(producer)) {}
  using ReadOnlyHandler::Response;

 protected:
  Response respond(mg_connection*, std::string&) override { return producer_(); }

 private:
  Producer producer_;
};

}  // namespace netif_rx
