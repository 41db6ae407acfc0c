// Label values must be valid UTF-8 in the exposition format; device names
// are arbitrary bytes (anything but '/', ':' and whitespace).
#pragma once

#include <string>
#include <string_view>

namespace netif_rx {

// Returns `raw` with every byte that is not part of valid UTF-8 replaced by
// U+FFFD. Quotes, backslashes and newlines are left to the serializer.
std::string to_label_value(std::string_view raw);

}  // namespace netif_rx
