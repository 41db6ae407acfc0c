// UTF-8 validity, byte by byte: shared by label values, JSON and terminal
// escaping.
#pragma once

#include <cstddef>
#include <string_view>

namespace netif_rx {

// The length of the valid UTF-8 sequence at the start of `text` (1 to 4), or
// 0 when it does not start with one (or is empty). Overlong forms,
// surrogates and values above U+10FFFF are not valid.
std::size_t utf8_sequence_length(std::string_view text);

}  // namespace netif_rx
