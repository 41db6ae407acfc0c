// Escaping text into JSON string literals (for JSON logs and `top --output json`).
#pragma once

#include <string>
#include <string_view>

namespace netif_rx {

// Appends `text` with quotes, backslashes and control characters (C0, DEL,
// C1) escaped, and each byte that is not UTF-8 as U+FFFD, so that the result
// is valid JSON whatever `text` holds (without the surrounding quotes).
void append_json_escaped(std::string& out, std::string_view text);

}  // namespace netif_rx
