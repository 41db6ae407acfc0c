#include "cli/flag_parser.h"

#include "cli/cli.h"

namespace netif_rx {

void parse_flags(const std::vector<std::string>& args, std::size_t first, const FlagTable& table) {
  for (std::size_t i = first; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (const auto flag = table.switches.find(arg); flag != table.switches.end()) {
      flag->second();
      continue;
    }
    const auto eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const auto flag = table.valued.find(name);
    if (flag == table.valued.end()) throw CliError(table.unknown_flag_message(name));
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      throw CliError("flag " + name + " needs a value, as in " + name + "=VALUE");
    }
    flag->second(value);
  }
}

}  // namespace netif_rx
