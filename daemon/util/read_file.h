// Small text files (/proc, /sys), read whole.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace netif_rx {

// The file's text, at most `max_bytes` of it; nullopt when it cannot be
// opened or read.
std::optional<std::string> read_file(const std::string& path, std::size_t max_bytes = 1 << 20);

}  // namespace netif_rx
