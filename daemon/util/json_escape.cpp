#include "util/json_escape.h"

#include <cstdio>

#include "util/utf8.h"

namespace netif_rx {
namespace {

void append_unicode_escape(std::string& out, unsigned code) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", code);
  out += buf;
}

}  // namespace

void append_json_escaped(std::string& out, std::string_view text) {
  while (!text.empty()) {
    const auto c = static_cast<unsigned char>(text[0]);
    const std::size_t length = utf8_sequence_length(text);
    if (length == 0) {
      out += "\\ufffd";  // not UTF-8: JSON text must be
      text.remove_prefix(1);
      continue;
    }
    if (length == 2 && c == 0xC2 && static_cast<unsigned char>(text[1]) < 0xA0) {
      append_unicode_escape(out, static_cast<unsigned char>(text[1]));  // C1 control
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (length == 1 && (c < 0x20 || c == 0x7F)) {
      append_unicode_escape(out, c);
    } else {
      out.append(text.substr(0, length));
    }
    text.remove_prefix(length);
  }
}

}  // namespace netif_rx
