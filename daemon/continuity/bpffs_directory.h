// Listing and emptying a directory of pins on a BPF filesystem.
#pragma once

#include <string>
#include <vector>

namespace netif_rx {

// The names in `directory` (no . and ..), sorted; empty when it does not
// exist.
std::vector<std::string> list_directory(const std::string& directory);

// Removes the pins in `directory` and the directory itself; what cannot be
// removed is logged and left.
void remove_directory(const std::string& directory);

// True for the name of a layout's directory: "v" and digits (e.g. "v5").
bool is_layout_directory(const std::string& name);

}  // namespace netif_rx
