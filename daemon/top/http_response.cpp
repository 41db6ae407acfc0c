#include "top/http_response.h"

#include <algorithm>
#include <cctype>
#include <optional>

namespace netif_rx {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Up to 80 bytes of `text`, with anything unprintable as '?', for messages.
std::string quote(std::string_view text) {
  std::string out(text.substr(0, 80));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return "'" + out + (text.size() > 80 ? "...'" : "'");
}

std::string size_text(std::size_t bytes) { return std::to_string(bytes) + " bytes"; }

// A decimal number, nullopt unless all digits and at most `limit`.
std::optional<std::size_t> bounded_decimal(std::string_view text, std::size_t limit) {
  if (text.empty()) return std::nullopt;
  std::size_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::size_t>(c - '0');
    if (value > limit) return limit + 1;
  }
  return value;
}

// A chunk size in hex, checked against the room left in the body: a size
// such as fffffffffffffffe never wraps into a small one.
std::size_t chunk_size(std::string_view line, std::size_t room) {
  const std::string_view digits = trim(line.substr(0, line.find(';')));
  if (digits.empty()) throw HttpFetchError("malformed chunk size " + quote(line));
  std::size_t size = 0;
  for (const char c : digits) {
    const int digit = std::isdigit(static_cast<unsigned char>(c))    ? c - '0'
                      : std::isxdigit(static_cast<unsigned char>(c)) ? std::tolower(c) - 'a' + 10
                                                                     : -1;
    if (digit < 0) throw HttpFetchError("malformed chunk size " + quote(line));
    size = size * 16 + static_cast<std::size_t>(digit);
    if (size > room) {
      throw HttpFetchError("a chunk of more than " + size_text(room) +
                           " exceeds the body limit (chunk size " + quote(digits) + ")");
    }
  }
  return size;
}

// De-chunks `body`; nullopt when it is incomplete.
std::optional<std::string> dechunk(std::string_view body, std::size_t limit) {
  std::string out;
  while (true) {
    const std::size_t line_end = body.find("\r\n");
    if (line_end == std::string_view::npos) {
      if (body.size() > 1024) throw HttpFetchError("chunk size line too long");
      return std::nullopt;
    }
    const std::size_t size = chunk_size(body.substr(0, line_end), limit - out.size());
    body.remove_prefix(line_end + 2);
    if (size == 0) return out;
    if (body.size() < size + 2) return std::nullopt;
    if (body.substr(size, 2) != "\r\n") throw HttpFetchError("a chunk does not end in CRLF");
    out.append(body.substr(0, size));
    body.remove_prefix(size + 2);
  }
}

struct Head {
  std::size_t body_offset = 0;
  int status = 0;
  std::string reason;
  std::map<std::string, std::string> headers;
};

void parse_status_line(std::string_view line, Head& head) {
  if (!line.starts_with("HTTP/1.") || line.size() < 12 || line[8] != ' ' ||
      !std::all_of(line.begin() + 9, line.begin() + 12,
                   [](char c) { return c >= '0' && c <= '9'; })) {
    throw HttpFetchError("the answer is not HTTP: " + quote(line));
  }
  head.status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
  head.reason = trim(line.substr(12));
}

// The status line and headers; nullopt while they are incomplete.
std::optional<Head> parse_head(std::string_view raw, const HttpLimits& limits) {
  const std::size_t end = raw.find("\r\n\r\n");
  const std::size_t head_size = end == std::string_view::npos ? raw.size() : end + 4;
  if (head_size > limits.max_header_bytes) {
    throw HttpFetchError("the headers exceed " + size_text(limits.max_header_bytes));
  }
  if (end == std::string_view::npos) return std::nullopt;
  Head head;
  head.body_offset = end + 4;
  std::string_view rest = raw.substr(0, end);
  const std::size_t status_end = rest.find("\r\n");
  parse_status_line(rest.substr(0, status_end), head);
  rest.remove_prefix(status_end == std::string_view::npos ? rest.size() : status_end + 2);
  while (!rest.empty()) {
    const std::size_t line_end = rest.find("\r\n");
    const std::string_view line = rest.substr(0, line_end);
    rest.remove_prefix(line_end == std::string_view::npos ? rest.size() : line_end + 2);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    head.headers[lower(trim(line.substr(0, colon)))] = trim(line.substr(colon + 1));
  }
  return head;
}

bool chunked(const Head& head) {
  const auto found = head.headers.find("transfer-encoding");
  return found != head.headers.end() && lower(found->second).find("chunked") != std::string::npos;
}

// The announced Content-Length, checked against the limit.
std::optional<std::size_t> content_length(const Head& head, const HttpLimits& limits) {
  const auto found = head.headers.find("content-length");
  if (found == head.headers.end()) return std::nullopt;
  const auto length = bounded_decimal(found->second, limits.max_body_bytes);
  if (!length) throw HttpFetchError("malformed Content-Length " + quote(found->second));
  if (*length > limits.max_body_bytes) {
    throw HttpFetchError("the body (Content-Length " + quote(found->second) + ") exceeds " +
                         size_text(limits.max_body_bytes));
  }
  return length;
}

void check_body_size(std::string_view body, const HttpLimits& limits) {
  if (body.size() > limits.max_body_bytes) {
    throw HttpFetchError("the body exceeds " + size_text(limits.max_body_bytes));
  }
}

}  // namespace

HttpResponse parse_http_response(std::string_view raw, const HttpLimits& limits) {
  std::optional<Head> head = parse_head(raw, limits);
  if (!head) throw HttpFetchError("the answer is not HTTP (no end of headers)");
  std::string_view body = raw.substr(head->body_offset);
  check_body_size(body, limits);

  const bool is_chunked = chunked(*head);
  const std::optional<std::size_t> length = content_length(*head, limits);
  HttpResponse response{head->status, std::move(head->reason), std::move(head->headers), ""};
  if (is_chunked) {
    auto decoded = dechunk(body, limits.max_body_bytes);
    if (!decoded) throw HttpFetchError("truncated chunked body");
    response.body = std::move(*decoded);
    return response;
  }
  if (length) {
    if (body.size() < *length) {
      throw HttpFetchError("the answer was cut short: " + std::to_string(body.size()) + " of " +
                           size_text(*length));
    }
    body = body.substr(0, *length);
  }
  response.body = body;
  return response;
}

bool http_response_complete(std::string_view raw, const HttpLimits& limits) {
  const std::optional<Head> head = parse_head(raw, limits);
  if (!head) return false;
  const std::string_view body = raw.substr(head->body_offset);
  check_body_size(body, limits);
  if (chunked(*head)) {
    // Only worth a full pass when the last bytes look like the last chunk.
    return body.ends_with("0\r\n\r\n") && dechunk(body, limits.max_body_bytes).has_value();
  }
  const auto length = content_length(*head, limits);
  return length && body.size() >= *length;
}

}  // namespace netif_rx
