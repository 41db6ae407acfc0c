#include "top/http_fetch.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>

#include "util/unique_fd.h"

namespace netif_rx {
namespace {

using Clock = std::chrono::steady_clock;

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::string dechunk(std::string_view body) {
  std::string out;
  while (true) {
    const std::size_t line_end = body.find("\r\n");
    if (line_end == std::string_view::npos) throw HttpFetchError("truncated chunked body");
    const std::string size_text(trim(body.substr(0, body.find_first_of(";\r"))));
    char* end = nullptr;
    const unsigned long long size = std::strtoull(size_text.c_str(), &end, 16);
    if (size_text.empty() || *end != '\0') {
      throw HttpFetchError("malformed chunk size '" + size_text + "'");
    }
    body.remove_prefix(line_end + 2);
    if (size == 0) return out;
    if (body.size() < size + 2) throw HttpFetchError("truncated chunked body");
    out.append(body.substr(0, size));
    body.remove_prefix(size + 2);
  }
}

int remaining_ms(Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// Waits for `events` on `fd` until the deadline; false on timeout.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  pollfd entry{fd, events, 0};
  while (true) {
    const int ready = ::poll(&entry, 1, remaining_ms(deadline));
    if (ready > 0) return true;
    if (ready == 0) return false;
    if (errno != EINTR) return false;
  }
}

struct AddrinfoDeleter {
  void operator()(addrinfo* list) const { ::freeaddrinfo(list); }
};

std::string endpoint(const HttpUrl& url) {
  const bool ipv6 = url.host.find(':') != std::string::npos;
  return (ipv6 ? "[" + url.host + "]" : url.host) + ":" + url.port;
}

// A connected socket to one of the host's addresses. Throws HttpFetchError.
UniqueFd connect_to(const HttpUrl& url, Clock::time_point deadline) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int err = ::getaddrinfo(url.host.c_str(), url.port.c_str(), &hints, &found); err != 0) {
    throw HttpFetchError("cannot resolve " + url.host + ": " + ::gai_strerror(err));
  }
  const std::unique_ptr<addrinfo, AddrinfoDeleter> addresses(found);
  std::string last_error = "no address";
  for (const addrinfo* address = found; address != nullptr; address = address->ai_next) {
    UniqueFd fd(::socket(address->ai_family, address->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                         address->ai_protocol));
    if (!fd.valid()) {
      last_error = std::strerror(errno);
      continue;
    }
    if (::connect(fd.get(), address->ai_addr, address->ai_addrlen) == 0) return fd;
    if (errno != EINPROGRESS) {
      last_error = std::strerror(errno);
      continue;
    }
    if (!wait_for(fd.get(), POLLOUT, deadline)) {
      last_error = "timed out";
      continue;
    }
    int error = 0;
    socklen_t length = sizeof error;
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length);
    if (error == 0) return fd;
    last_error = std::strerror(error);
  }
  throw HttpFetchError("cannot connect to " + endpoint(url) + ": " + last_error);
}

// True when `raw` holds the headers and a Content-Length body in full, so
// that a server that keeps the connection open needn't be waited for.
bool complete_with_length(std::string_view raw) {
  const std::size_t header_end = raw.find("\r\n\r\n");
  if (header_end == std::string_view::npos) return false;
  const std::string head = lower(std::string(raw.substr(0, header_end)));
  if (head.find("transfer-encoding:") != std::string::npos) return false;
  const std::size_t at = head.find("\r\ncontent-length:");
  if (at == std::string::npos) return false;
  const unsigned long long length = std::strtoull(head.c_str() + at + 17, nullptr, 10);
  return raw.size() - header_end - 4 >= length;
}

}  // namespace

std::optional<HttpUrl> parse_http_url(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (url.substr(0, kScheme.size()) != kScheme) return std::nullopt;
  url.remove_prefix(kScheme.size());
  const std::size_t slash = url.find_first_of("/?#");
  std::string_view authority = url.substr(0, slash);
  HttpUrl parsed;
  if (slash != std::string_view::npos) {
    std::string_view target = url.substr(slash);
    target = target.substr(0, target.find('#'));
    parsed.target = target.empty() || target[0] != '/' ? "/" + std::string(target) : target;
  }
  if (authority.find('@') != std::string_view::npos) return std::nullopt;  // no credentials
  std::string_view port;
  bool has_port = false;
  if (!authority.empty() && authority[0] == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    parsed.host = authority.substr(1, close - 1);
    const std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') return std::nullopt;
      port = rest.substr(1);
      has_port = true;
    }
  } else {
    const std::size_t colon = authority.find(':');
    parsed.host = authority.substr(0, colon);
    if (colon != std::string_view::npos) {
      port = authority.substr(colon + 1);
      has_port = true;
    }
  }
  if (parsed.host.empty()) return std::nullopt;
  if (has_port) {
    if (port.empty() || port.size() > 5 ||
        !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    const int number = std::stoi(std::string(port));
    if (number < 1 || number > 65535) return std::nullopt;
    parsed.port = std::to_string(number);
  }
  return parsed;
}

HttpResponse parse_http_response(std::string_view raw) {
  const std::size_t header_end = raw.find("\r\n\r\n");
  if (header_end == std::string_view::npos) {
    throw HttpFetchError("the answer is not HTTP (no end of headers)");
  }
  std::string_view head = raw.substr(0, header_end);
  std::string_view body = raw.substr(header_end + 4);

  HttpResponse response;
  const std::size_t status_end = head.find("\r\n");
  const std::string_view status_line = head.substr(0, status_end);
  if (status_line.substr(0, 7) != "HTTP/1." || status_line.size() < 12 ||
      !std::isdigit(static_cast<unsigned char>(status_line[9])) ||
      !std::isdigit(static_cast<unsigned char>(status_line[10])) ||
      !std::isdigit(static_cast<unsigned char>(status_line[11]))) {
    throw HttpFetchError("the answer is not HTTP: '" + std::string(status_line.substr(0, 80)) +
                         "'");
  }
  response.status = std::stoi(std::string(status_line.substr(9, 3)));
  response.reason = trim(status_line.substr(std::min<std::size_t>(12, status_line.size())));

  head.remove_prefix(status_end == std::string_view::npos ? head.size() : status_end + 2);
  while (!head.empty()) {
    const std::size_t end = head.find("\r\n");
    const std::string_view line = head.substr(0, end);
    head.remove_prefix(end == std::string_view::npos ? head.size() : end + 2);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    response.headers[lower(std::string(trim(line.substr(0, colon))))] =
        trim(line.substr(colon + 1));
  }

  const auto encoding = response.headers.find("transfer-encoding");
  if (encoding != response.headers.end() &&
      lower(encoding->second).find("chunked") != std::string::npos) {
    response.body = dechunk(body);
    return response;
  }
  const auto length = response.headers.find("content-length");
  if (length != response.headers.end()) {
    char* end = nullptr;
    const unsigned long long expected = std::strtoull(length->second.c_str(), &end, 10);
    if (length->second.empty() || *end != '\0') {
      throw HttpFetchError("malformed Content-Length '" + length->second + "'");
    }
    if (body.size() < expected) {
      throw HttpFetchError("the answer was cut short: " + std::to_string(body.size()) + " of " +
                           std::to_string(expected) + " bytes");
    }
    body = body.substr(0, expected);
  }
  response.body = body;
  return response;
}

HttpResponse http_get(const std::string& url_text, std::chrono::milliseconds timeout) {
  const auto url = parse_http_url(url_text);
  if (!url) {
    throw HttpFetchError("'" + url_text + "' is not an http://host[:port]/path URL");
  }
  const auto deadline = Clock::now() + timeout;
  const UniqueFd fd = connect_to(*url, deadline);
  const std::string timeout_text = std::to_string(timeout.count()) + "ms";

  const std::string request = "GET " + url->target + " HTTP/1.1\r\nHost: " + endpoint(*url) +
                              "\r\nAccept: text/plain;version=0.0.4\r\n"
                              "User-Agent: netif_rx_exporter-top\r\nConnection: close\r\n\r\n";
  std::string_view unsent = request;
  while (!unsent.empty()) {
    if (!wait_for(fd.get(), POLLOUT, deadline)) {
      throw HttpFetchError("sending to " + endpoint(*url) + " timed out after " + timeout_text);
    }
    const ssize_t sent = ::send(fd.get(), unsent.data(), unsent.size(), MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw HttpFetchError("sending to " + endpoint(*url) + " failed: " + std::strerror(errno));
    }
    unsent.remove_prefix(static_cast<std::size_t>(sent));
  }

  std::string raw;
  char buffer[16384];
  while (true) {
    if (!wait_for(fd.get(), POLLIN, deadline)) {
      throw HttpFetchError("no complete answer from " + endpoint(*url) + " within " + timeout_text);
    }
    const ssize_t received = ::recv(fd.get(), buffer, sizeof buffer, 0);
    if (received == 0) break;
    if (received < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw HttpFetchError("reading from " + endpoint(*url) + " failed: " + std::strerror(errno));
    }
    raw.append(buffer, static_cast<std::size_t>(received));
    if (complete_with_length(raw)) break;
  }
  return parse_http_response(raw);
}

}  // namespace netif_rx
