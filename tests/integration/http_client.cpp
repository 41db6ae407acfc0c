#include "http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <sstream>

namespace netif_rx::test {

HttpResponse http_get(int port, const std::string& path, const std::string& method) {
  HttpResponse response;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return response;
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return response;
  }
  const std::string request = method + " " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) < 0) {
    ::close(fd);
    return response;
  }
  std::string raw;
  char buf[65536];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) raw.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  if (raw.rfind("HTTP/1.", 0) != 0 || raw.size() < 12) return response;
  response.status = std::stoi(raw.substr(9, 3));
  const auto header_end = raw.find("\r\n\r\n");
  if (header_end != std::string::npos) response.body = raw.substr(header_end + 4);
  return response;
}

Series parse_exposition(const std::string& text) {
  Series series;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.rfind(' ');
    if (space == std::string::npos) continue;
    std::string key = line.substr(0, space);
    const double value = std::stod(line.substr(space + 1));
    // Re-key with sorted labels.
    if (key.find('{') != std::string::npos) key = series_key(metric_of(key), labels_of(key));
    series[key] = value;
  }
  return series;
}

std::string metric_of(const std::string& key) { return key.substr(0, key.find('{')); }

Labels labels_of(const std::string& key) {
  Labels labels;
  const auto brace = key.find('{');
  if (brace == std::string::npos) return labels;
  const std::string body = key.substr(brace + 1, key.size() - brace - 2);
  std::size_t pos = 0;
  while (pos < body.size()) {
    const auto eq = body.find('=', pos);
    const auto close = body.find('"', eq + 2);
    labels[body.substr(pos, eq - pos)] = body.substr(eq + 2, close - eq - 2);
    pos = close + 2;
  }
  return labels;
}

std::string series_key(const std::string& name, std::map<std::string, std::string> labels) {
  if (labels.empty()) return name;
  std::string key = name + "{";
  bool first = true;
  for (const auto& [label, value] : labels) {
    key += (first ? "" : ",") + label + "=\"" + value + "\"";
    first = false;
  }
  return key + "}";
}

}  // namespace netif_rx::test
