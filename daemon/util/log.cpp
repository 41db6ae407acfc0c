#include "util/log.h"

#include <cmath>
#include <cstdio>

#include "util/duration.h"

namespace netif_rx::log {
namespace {

constexpr char kFieldSeparator = '\x1f';
constexpr char kValueSeparator = '\x1e';

void append_clean(std::string& out, std::string_view text) {
  for (char c : text) out += (c == kFieldSeparator || c == kValueSeparator) ? ' ' : c;
}

}  // namespace

Field::Field(std::string_view key, double value) : key_(key) {
  if (std::isfinite(value)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", value);
    value_ = buf;
    number_ = true;
  } else {
    value_ = std::isnan(value) ? "NaN" : (value > 0 ? "+Inf" : "-Inf");
  }
}

Field::Field(std::string_view key, std::chrono::milliseconds value)
    : key_(key), value_(format_duration(value)) {}

std::string encode_payload(std::string_view message, std::initializer_list<Field> fields) {
  std::string out;
  append_clean(out, message);
  for (const Field& field : fields) {
    out += kFieldSeparator;
    out += field.number() ? 'n' : 's';
    append_clean(out, field.key());
    out += kValueSeparator;
    append_clean(out, field.value());
  }
  return out;
}

DecodedPayload decode_payload(std::string_view payload) {
  DecodedPayload out;
  std::size_t end = payload.find(kFieldSeparator);
  out.message = payload.substr(0, end);
  while (end != std::string_view::npos) {
    const std::size_t start = end + 1;
    end = payload.find(kFieldSeparator, start);
    const std::string_view item =
        payload.substr(start, end == std::string_view::npos ? payload.npos : end - start);
    const std::size_t split = item.find(kValueSeparator);
    if (item.empty() || split == std::string_view::npos) continue;
    out.fields.push_back({item.substr(1, split - 1), item.substr(split + 1), item[0] == 'n'});
  }
  return out;
}

void write(spdlog::level::level_enum level, const Message& message,
           std::initializer_list<Field> fields) {
  spdlog::logger* logger = spdlog::default_logger_raw();
  if (logger == nullptr || !logger->should_log(level)) return;
  const std::string payload = encode_payload(message.text, fields);
  logger->log(spdlog::source_loc{message.where.file_name(), static_cast<int>(message.where.line()),
                                 message.where.function_name()},
              level, spdlog::string_view_t(payload.data(), payload.size()));
}

}  // namespace netif_rx::log
