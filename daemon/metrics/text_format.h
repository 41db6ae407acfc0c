// Pieces of the Prometheus text exposition format (version 0.0.4), appended
// straight to a string: what the writers of the large families use instead
// of building prometheus-cpp families and serializing them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace netif_rx {

// "# HELP <name> <help>\n# TYPE <name> <type>\n". `help` is a constant of
// the exporter's (no backslash, no newline).
void append_family_header(std::string& out, std::string_view name, std::string_view help,
                          std::string_view type);

// A label value with its backslashes, double quotes and newlines escaped
// (\\, \", \n); every other byte as it is.
void append_label_value(std::string& out, std::string_view value);

// name="value", the value escaped.
void append_label(std::string& out, std::string_view name, std::string_view value);

// An integer in decimal, exactly (a counter beyond 2^53 too).
void append_integer(std::string& out, std::uint64_t value);

// device="name", then ,netns="inum" when the netns label is on: the labels
// that open a series of the receive-path families.
void append_device_netns(std::string& out, std::string_view device, std::uint64_t netns_inum,
                         bool netns_label);

}  // namespace netif_rx
