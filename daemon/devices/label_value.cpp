#include "devices/label_value.h"

#include <algorithm>

#include "util/utf8.h"

namespace netif_rx {

std::string to_label_value(std::string_view raw) {
  // ASCII, as device names nearly always are, is valid as it is.
  if (std::all_of(raw.begin(), raw.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    return std::string(raw);
  }
  std::string out;
  out.reserve(raw.size());
  while (!raw.empty()) {
    const std::size_t length = utf8_sequence_length(raw);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      raw.remove_prefix(1);
    } else {
      out.append(raw.substr(0, length));
      raw.remove_prefix(length);
    }
  }
  return out;
}

}  // namespace netif_rx
