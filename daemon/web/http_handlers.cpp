#include "web/http_handlers.h"

#include <prometheus/text_serializer.h>
#include <spdlog/spdlog.h>

#include "metrics/text_exposition.h"
#include "util/log.h"
#include "web/gzip_body.h"
#include "web/web_config_watcher.h"

namespace netif_rx {
namespace {

const char* reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 503:
      return "Service Unavailable";
    default:
      return "Internal Server Error";
  }
}

}  // namespace

bool ReadOnlyHandler::handleGet(CivetServer*, mg_connection* conn) {
  return serve(conn, true, true);
}
bool ReadOnlyHandler::handleHead(CivetServer*, mg_connection* conn) {
  return serve(conn, false, true);
}
bool ReadOnlyHandler::handlePost(CivetServer*, mg_connection* conn) {
  return serve(conn, true, false);
}
bool ReadOnlyHandler::handlePut(CivetServer*, mg_connection* conn) {
  return serve(conn, true, false);
}
bool ReadOnlyHandler::handleDelete(CivetServer*, mg_connection* conn) {
  return serve(conn, true, false);
}
bool ReadOnlyHandler::handlePatch(CivetServer*, mg_connection* conn) {
  return serve(conn, true, false);
}
bool ReadOnlyHandler::handleOptions(CivetServer*, mg_connection* conn) {
  return serve(conn, true, false);
}

bool ReadOnlyHandler::serve(mg_connection* conn, bool with_body, bool allowed_method) {
  Response response;
  std::string headers;
  const mg_request_info* request = mg_get_request_info(conn);
  try {
    std::shared_ptr<const WebState> web = web_ ? web_->current() : nullptr;
    if (web) {
      for (const auto& [name, value] : web->headers) headers += name + ": " + value + "\r\n";
    }
    if (web && !web->ok) {
      response = {500, "text/plain; charset=utf-8",
                  "the web configuration file is invalid; see the exporter's log\n"};
    } else if (web && !open_to_probes_ && web->client_certificate_required &&
               (request == nullptr || request->client_cert == nullptr)) {
      response = {403, "text/plain; charset=utf-8", "a client certificate is required\n"};
    } else if (web && !open_to_probes_ && web->auth && web->auth->enabled() &&
               !web->auth->allows(mg_get_header(conn, "Authorization"))) {
      response = {401, "text/plain; charset=utf-8", "Unauthorized\n"};
      headers += "WWW-Authenticate: Basic realm=\"netif_rx_exporter\"\r\n";
    } else if (!allowed_method) {
      response = {405, "text/plain; charset=utf-8", "only GET and HEAD are allowed\n"};
      headers += "Allow: GET, HEAD\r\n";
    } else if (request == nullptr || request->local_uri == nullptr || path_ != request->local_uri) {
      response = {404, "text/plain; charset=utf-8", "not found\n"};
    } else {
      response = respond(conn, headers);
    }
  } catch (const std::exception& e) {
    log::error("HTTP handler failed", {{"err", e.what()}});
    response = {500, "text/plain; charset=utf-8", "internal error\n"};
  } catch (...) {
    // Nothing may unwind through civetweb's C frames.
    log::error("HTTP handler failed", {{"err", "unknown exception"}});
    response = {500, "text/plain; charset=utf-8", "internal error\n"};
  }
  mg_printf(conn,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
            "Cache-Control: no-store\r\n%s%s\r\n",
            response.status, reason_phrase(response.status), response.content_type.c_str(),
            response.body.size(),
            headers.find("X-Content-Type-Options") == std::string::npos
                ? "X-Content-Type-Options: nosniff\r\n"
                : "",
            headers.c_str());
  if (with_body) mg_write(conn, response.body.data(), response.body.size());
  return true;
}

MetricsHandler::Response MetricsHandler::respond(mg_connection* conn, std::string& headers) {
  if (unavailable_) {
    if (std::string why = unavailable_(); !why.empty()) {
      return {503, "text/plain; charset=utf-8", std::move(why)};
    }
  }
  // Compressed where the client accepts it (Prometheus does), on the render
  // thread too: zlib's buffers are that thread's.
  const bool gzip = accepts_gzip(mg_get_header(conn, "Accept-Encoding"));
  std::string body = render_thread_.run([this, gzip] {
    std::string text = render();
    if (!gzip) return text;  // moved, not copied
    return gzip_compress(text);
  });
  headers += "Vary: Accept-Encoding\r\n";
  if (gzip) headers += "Content-Encoding: gzip\r\n";
  return {200, "text/plain; version=0.0.4; charset=utf-8", std::move(body)};
}

std::string MetricsHandler::render() {
  std::string body;
  // Room for as much as the last scrape wrote, and some growth.
  body.reserve(last_size_ + last_size_ / 8);
  for (const auto& collectable : collectables_) {
    if (const auto* text = dynamic_cast<const TextExposition*>(collectable.get())) {
      text->write_text(body);
    } else {
      body.append(prometheus::TextSerializer().Serialize(collectable->Collect()));
    }
  }
  last_size_ = body.size();
  return body;
}

}  // namespace netif_rx
