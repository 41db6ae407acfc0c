// The flag loop shared by the exporter's command line and `top`'s:
// --flag=value, --flag value, and switches without a value.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace netif_rx {

struct FlagTable {
  std::map<std::string, std::function<void(const std::string&)>> valued;
  std::map<std::string, std::function<void()>> switches;
  // The message for a flag in neither table.
  std::function<std::string(const std::string& name)> unknown_flag_message;
};

// Applies args[first..] to the table. Throws CliError.
void parse_flags(const std::vector<std::string>& args, std::size_t first, const FlagTable& table);

}  // namespace netif_rx
