// Process-wide logging through spdlog, to stderr, as logfmt or JSON lines. Both formats carry the
// same keys in the same order: ts, level, source (file:line of the call), msg, then the record's
// fields (util/log.h). A record is always exactly one line.
#pragma once

#include <spdlog/spdlog.h>

#include <string>
#include <string_view>
#include <vector>

#include "util/log.h"

namespace netif_rx {

enum class LogFormat { logfmt, json };

// Configures the default logger. `level`: debug, info, warn or error.
void setup_logging(std::string_view level, LogFormat format);

// Renders one record; exposed for tests. An empty `source` is left out.
std::string format_log_record(LogFormat format, std::string_view timestamp, std::string_view level,
                              std::string_view source, std::string_view message,
                              const std::vector<log::DecodedField>& fields);

// A record without source and fields.
std::string format_log_line(LogFormat format, std::string_view timestamp, std::string_view level,
                            std::string_view message);

// "dir/file.cpp:LINE" from a compiler's file name (the last two path components).
std::string log_source(std::string_view file, int line);

}  // namespace netif_rx
