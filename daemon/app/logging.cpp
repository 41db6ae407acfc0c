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

class LineFormatter final : public spdlog::formatter {
 public:
  explicit LineFormatter(LogFormat format) : format_(format) {}

  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const std::string line =
        format_log_line(format_, iso8601(msg.time), level_name(msg.level),
                        std::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(line.data(), line.data() + line.size());
  }

  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<LineFormatter>(format_);
  }

 private:
  LogFormat format_;
};

}  // namespace

std::string format_log_line(LogFormat format, std::string_view timestamp, std::string_view level,
                            std::string_view message) {
  std::string line;
  // Messages from libbpf end with a newline: one record is one line.
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) {
    message.remove_suffix(1);
  }
  if (format == LogFormat::json) {
    line += "{\"ts\":\"";
    line += timestamp;
    line += "\",\"level\":\"";
    line += level;
    line += "\",\"msg\":\"";
    append_json_escaped(line, message);
    line += "\"}\n";
  } else {
    line += "ts=";
    line += timestamp;
    line += " level=";
    line += level;
    line += " msg=\"";
    append_json_escaped(line, message);  // logfmt quotes escape like JSON strings
    line += "\"\n";
  }
  return line;
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
