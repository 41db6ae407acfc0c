// Process-wide logging through spdlog, to stderr, as logfmt or JSON lines.
#pragma once

#include <spdlog/spdlog.h>

#include <string>
#include <string_view>

namespace netif_rx {

enum class LogFormat { logfmt, json };

// Configures the default logger. `level`: debug, info, warn or error.
void setup_logging(std::string_view level, LogFormat format);

// Renders one record; exposed for tests.
std::string format_log_line(LogFormat format, std::string_view timestamp, std::string_view level,
                            std::string_view message);

}  // namespace netif_rx
