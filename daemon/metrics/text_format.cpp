#include "metrics/text_format.h"

#include <charconv>

namespace netif_rx {

void append_family_header(std::string& out, std::string_view name, std::string_view help,
                          std::string_view type) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void append_label_value(std::string& out, std::string_view value) {
  for (;;) {
    const std::size_t special = value.find_first_of("\\\"\n");
    out.append(value.substr(0, special));
    if (special == std::string_view::npos) return;
    out.push_back('\\');
    out.push_back(value[special] == '\n' ? 'n' : value[special]);
    value.remove_prefix(special + 1);
  }
}

void append_label(std::string& out, std::string_view name, std::string_view value) {
  out.append(name).append("=\"");
  append_label_value(out, value);
  out.push_back('"');
}

void append_device_netns(std::string& out, std::string_view device, std::uint64_t netns_inum,
                         bool netns_label) {
  append_label(out, "device", device);
  if (!netns_label) return;
  out.append(",netns=\"");
  append_integer(out, netns_inum);
  out.push_back('"');
}

void append_integer(std::string& out, std::uint64_t value) {
  char digits[20];  // 2^64 - 1 has 20
  const auto written = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, written.ptr);
}

}  // namespace netif_rx
