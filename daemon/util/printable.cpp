#include "util/printable.h"

#include <cstdio>

#include "util/utf8.h"

namespace netif_rx {
namespace {

void append_hex(std::string& out, unsigned char byte) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", byte);
  out += buf;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const auto lead = static_cast<unsigned char>(text[0]);
    const std::size_t length = utf8_sequence_length(text);
    const bool c1 = length == 2 && lead == 0xC2 && static_cast<unsigned char>(text[1]) < 0xA0;
    if (length == 0 || c1) {
      append_hex(out, lead);
      text.remove_prefix(1);
      continue;
    }
    if (length == 1 && (lead < 0x20 || lead == 0x7F)) {
      append_hex(out, lead);
    } else if (lead == '\\') {
      out += "\\\\";
    } else {
      out.append(text.substr(0, length));
    }
    text.remove_prefix(length);
  }
  return out;
}

}  // namespace netif_rx
