#include "devices/label_value.h"

#include <algorithm>

#include "util/utf8.h"

namespace netif_rx {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

std::string to_label_value(std::string_view raw) {
  // ASCII, as device names nearly always are, is valid as it is.
  if (std::all_of(raw.begin(), raw.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    return std::string(raw);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(raw.size() + 8);
  while (!raw.empty()) {
    const std::size_t length = utf8_sequence_length(raw);
    if (length == 0) {
      // U+FFFD and the byte in hex: two names never give one label value.
      const auto byte = static_cast<unsigned char>(raw.front());
      out += kReplacement;
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
      raw.remove_prefix(1);
    } else if (raw.substr(0, length) == kReplacement) {
      // A U+FFFD of the name itself: followed by 'u', never by hex digits.
      out += kReplacement;
      out += 'u';
      raw.remove_prefix(length);
    } else {
      out.append(raw.substr(0, length));
      raw.remove_prefix(length);
    }
  }
  return out;
}

}  // namespace netif_rx
