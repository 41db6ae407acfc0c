// Durations written as Prometheus writes them: "500ms", "1s", "1m30s", "2h".
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace netif_rx {

using Milliseconds = std::chrono::milliseconds;

// Parses a Prometheus duration (units y, w, d, h, m, s, ms, largest first,
// each at most once). Returns nullopt when the text is not one.
std::optional<Milliseconds> parse_duration(std::string_view text);

// Formats a duration the way Prometheus prints it ("1m30s", "500ms", "0s").
std::string format_duration(Milliseconds duration);

}  // namespace netif_rx
