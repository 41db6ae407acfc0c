#include "http_handlers.h"

#include <prometheus/text_serializer.h>
#include <spdlog/spdlog.h>

#include <sstream>

namespace netif_rx {
namespace {

const char* reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
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

bool ReadOnlyHandler::handleGet(CivetServer*, mg_connection* conn) { return serve(conn, true); }
bool ReadOnlyHandler::handleHead(CivetServer*, mg_connection* conn) { return serve(conn, false); }
bool ReadOnlyHandler::handlePost(CivetServer*, mg_connection* conn) { return refuse(conn); }
bool ReadOnlyHandler::handlePut(CivetServer*, mg_connection* conn) { return refuse(conn); }
bool ReadOnlyHandler::handleDelete(CivetServer*, mg_connection* conn) { return refuse(conn); }
bool ReadOnlyHandler::handlePatch(CivetServer*, mg_connection* conn) { return refuse(conn); }
bool ReadOnlyHandler::handleOptions(CivetServer*, mg_connection* conn) { return refuse(conn); }

bool ReadOnlyHandler::serve(mg_connection* conn, bool with_body) {
  Response response;
  const mg_request_info* request = mg_get_request_info(conn);
  try {
    if (request == nullptr || request->local_uri == nullptr || path_ != request->local_uri) {
      response = {404, "text/plain; charset=utf-8", "not found\n"};
    } else {
      response = respond(conn);
    }
  } catch (const std::exception& e) {
    spdlog::error("http: handler failed: {}", e.what());
    response = {500, "text/plain; charset=utf-8", "internal error\n"};
  }
  mg_printf(conn,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
            "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\r\n",
            response.status, reason_phrase(response.status), response.content_type.c_str(),
            response.body.size());
  if (with_body) mg_write(conn, response.body.data(), response.body.size());
  return true;
}

bool ReadOnlyHandler::refuse(mg_connection* conn) {
  const std::string body = "only GET and HEAD are allowed\n";
  mg_printf(conn,
            "HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD\r\n"
            "Content-Type: text/plain; charset=utf-8\r\nContent-Length: %zu\r\n\r\n%s",
            body.size(), body.c_str());
  return true;
}

MetricsHandler::Response MetricsHandler::respond(mg_connection*) {
  std::vector<prometheus::MetricFamily> families;
  for (const auto& collectable : collectables_) {
    auto collected = collectable->Collect();
    families.insert(families.end(), std::make_move_iterator(collected.begin()),
                    std::make_move_iterator(collected.end()));
  }
  std::ostringstream body;
  prometheus::TextSerializer().Serialize(body, families);
  return {200, "text/plain; version=0.0.4; charset=utf-8", body.str()};
}

}  // namespace netif_rx
