// Label values must be valid UTF-8 in the exposition format; device names
// are arbitrary bytes (anything but '/', ':' and whitespace).
#pragma once

#include <string>
#include <string_view>

namespace netif_rx {

// Returns `raw` with every byte that is not part of valid UTF-8 replaced by
// U+FFFD and the byte's two lowercase hex digits ("eth\xff0" gives
// "eth\u{FFFD}ff0"), and every U+FFFD of `raw` by U+FFFD 'u': valid UTF-8,
// and one-to-one, so that two device names never share a label value (one
// would hide the other's counts). Quotes, backslashes and newlines are left
// to the serializer.
std::string to_label_value(std::string_view raw);

}  // namespace netif_rx
