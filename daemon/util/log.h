// Structured logging: each record is a fixed message ("listening", "probe attached") and its
// variable parts as separate fields, with the call site as its source, so logfmt and JSON pipelines
// (Loki's `| logfmt`, `| json`) can extract every value:
//
//   log::info("listening", {{"address", address}, {"telemetry_path", path}});
//
// Records go through spdlog's default logger; app/logging.h renders them as logfmt or JSON lines
// with the same keys: ts, level, source, msg, then the fields in order. Errors go in a field named
// "err", as in the Prometheus ecosystem.
#pragma once

#include <spdlog/spdlog.h>

#include <chrono>
#include <concepts>
#include <initializer_list>
#include <source_location>
#include <string>
#include <string_view>

namespace netif_rx::log {

// One key and its value. Numbers and booleans are written without quotes in JSON.
class Field {
 public:
  Field(std::string_view key, std::string_view value) : key_(key), value_(value) {}
  Field(std::string_view key, const std::string& value) : key_(key), value_(value) {}
  Field(std::string_view key, const char* value) : key_(key), value_(value ? value : "") {}
  Field(std::string_view key, bool value)
      : key_(key), value_(value ? "true" : "false"), number_(true) {}
  template <typename T>
  requires std::integral<T> &&(!std::same_as<T, bool>)Field(std::string_view key, T value)
      : key_(key), value_(std::to_string(value)), number_(true) {}
  Field(std::string_view key, double value);
  // As Prometheus writes durations: "1m30s".
  Field(std::string_view key, std::chrono::milliseconds value);

  const std::string& key() const { return key_; }
  const std::string& value() const { return value_; }
  bool number() const { return number_; }

 private:
  std::string key_;
  std::string value_;
  bool number_ = false;
};

#if defined(__clang__) && __clang_major__ < 15
// clang 14 cannot compile libstdc++ 12's std::source_location (it lacks
// __builtin_source_location); the builtins below give the same call site.
struct SourceSite {
  const char* file;
  unsigned line_number;
  const char* function;
  const char* file_name() const { return file; }
  unsigned line() const { return line_number; }
  const char* function_name() const { return function; }
};

struct Message {
  template <typename Text>
  requires std::convertible_to<const Text&, std::string_view> Message(
      const Text& message, const char* file = __builtin_FILE(), unsigned line = __builtin_LINE(),
      const char* function = __builtin_FUNCTION())
      : text(message), where{file, line, function} {}

  std::string_view text;
  SourceSite where;
};
#else
// A record's message and the place it was logged from (taken implicitly at the call site).
struct Message {
  template <typename Text>
  requires std::convertible_to<const Text&, std::string_view> Message(
      const Text& message, std::source_location site = std::source_location::current())
      : text(message), where(site) {}

  std::string_view text;
  std::source_location where;
};
#endif

void write(spdlog::level::level_enum level, const Message& message,
           std::initializer_list<Field> fields);

inline void debug(const Message& message, std::initializer_list<Field> fields = {}) {
  write(spdlog::level::debug, message, fields);
}
inline void info(const Message& message, std::initializer_list<Field> fields = {}) {
  write(spdlog::level::info, message, fields);
}
inline void warn(const Message& message, std::initializer_list<Field> fields = {}) {
  write(spdlog::level::warn, message, fields);
}
inline void error(const Message& message, std::initializer_list<Field> fields = {}) {
  write(spdlog::level::err, message, fields);
}

// The payload handed to spdlog: the message, then per field a separator, a kind ('s' string,
// 'n' number), the key, a separator and the value. The separators are replaced in the texts.
std::string encode_payload(std::string_view message, std::initializer_list<Field> fields);

struct DecodedField {
  std::string_view key;
  std::string_view value;
  bool number = false;
};
struct DecodedPayload {
  std::string_view message;
  std::vector<DecodedField> fields;
};
// Splits a payload; plain text (a record not made by write()) is all message.
DecodedPayload decode_payload(std::string_view payload);

}  // namespace netif_rx::log
