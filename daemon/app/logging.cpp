#include "app/logging.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <chrono>
#include <cstdio>
#include <ctime>

#include "util/json_escape.h"

namespace netif_rx {
namespace {

std::string_view level_name(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
    case spdlog::level::debug:
      return "debug";
    case spdlog::level::info:
      return "info";
    case spdlog::level::warn:
      return "warn";
    default:
      return "error";
  }
}

std::string iso8601(std::chrono::system_clock::time_point time) {
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(millis / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buf[40];
  const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(millis % 1000));
  return buf;
}

// Whether a logfmt value must be quoted: empty, or holding spaces, quotes, '=', backslashes or
// control characters.
bool needs_quotes(std::string_view value) {
  if (value.empty()) return true;
  for (unsigned char c : value) {
    if (c <= ' ' || c == '"' || c == '=' || c == '\\' || c == 0x7f) return true;
  }
  return false;
}

// Messages from libbpf end with a newline: one record is one line.
std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  return text;
}

void append_logfmt(std::string& line, std::string_view key, std::string_view value, bool quote) {
  line += ' ';
  line += key;
  line += '=';
  if (quote || needs_quotes(value)) {
    line += '"';
    append_json_escaped(line, value);  // logfmt quotes escape like JSON strings
    line += '"';
  } else {
    line += value;
  }
}

void append_json(std::string& line, std::string_view key, std::string_view value, bool number) {
  line += ",\"";
  append_json_escaped(line, key);
  line += "\":";
  if (number) {
    line += value;
  } else {
    line += '"';
    append_json_escaped(line, value);
    line += '"';
  }
}

class LineFormatter final : public spdlog::formatter {
 public:
  explicit LineFormatter(LogFormat format) : format_(format) {}

  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const log::DecodedPayload payload =
        log::decode_payload(std::string_view(msg.payload.data(), msg.payload.size()));
    const std::string source =
        msg.source.empty() ? std::string() : log_source(msg.source.filename, msg.source.line);
    const std::string line = format_log_record(format_, iso8601(msg.time), level_name(msg.level),
                                               source, payload.message, payload.fields);
    dest.append(line.data(), line.data() + line.size());
  }

  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<LineFormatter>(format_);
  }

 private:
  LogFormat format_;
};

}  // namespace

std::string log_source(std::string_view file, int line) {
  const std::size_t cut = file.rfind('/');
  if (cut != std::string_view::npos && cut > 0) {
    const std::size_t parent = file.rfind('/', cut - 1);
    file.remove_prefix(parent == std::string_view::npos ? 0 : parent + 1);
  }
  return std::string(file) + ":" + std::to_string(line);
}

std::string format_log_record(LogFormat format, std::string_view timestamp, std::string_view level,
                              std::string_view source, std::string_view message,
                              const std::vector<log::DecodedField>& fields) {
  std::string line;
  if (format == LogFormat::json) {
    line += "{\"ts\":\"";
    append_json_escaped(line, timestamp);
    line += "\",\"level\":\"";
    line += level;
    line += '"';
    if (!source.empty()) append_json(line, "source", source, false);
    append_json(line, "msg", trimmed(message), false);
    for (const auto& field : fields) {
      append_json(line, field.key, trimmed(field.value), field.number);
    }
    line += "}\n";
  } else {
    line += "ts=";
    line += timestamp;
    line += " level=";
    line += level;
    if (!source.empty()) append_logfmt(line, "source", source, false);
    append_logfmt(line, "msg", trimmed(message), true);
    for (const auto& field : fields) append_logfmt(line, field.key, trimmed(field.value), false);
    line += '\n';
  }
  return line;
}

std::string format_log_line(LogFormat format, std::string_view timestamp, std::string_view level,
                            std::string_view message) {
  return format_log_record(format, timestamp, level, "", message, {});
}

void setup_logging(std::string_view level, LogFormat format) {
  auto logger = std::make_shared<spdlog::logger>("netif_rx_exporter",
                                                 std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_formatter(std::make_unique<LineFormatter>(format));
  logger->set_level(spdlog::level::from_str(std::string(level)));
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

}  // namespace netif_rx
