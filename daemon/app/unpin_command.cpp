#include "app/unpin_command.h"

#include <cstdio>
#include <string>

#include "continuity/pin_removal.h"
#include "continuity/probe_error.h"

namespace netif_rx {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

int run_unpin(const CliOptions& cli) {
  PinRemoval removal;
  try {
    removal = remove_pinned_probe(cli.pin_path);
  } catch (const ProbeError& e) {
    std::fprintf(stderr, "netif_rx_exporter: error: %s\n", e.what());
    return 1;
  }
  if (!removal.found || removal.removed.empty()) {
    std::printf("nothing pinned at %s\n", cli.pin_path.c_str());
  } else {
    std::printf("removed the probe pinned at %s (%s): it is detached and its counts are gone\n",
                cli.pin_path.c_str(), joined(removal.removed).c_str());
  }
  if (!removal.left.empty()) {
    std::printf("left in %s, not the exporter's: %s\n", cli.pin_path.c_str(),
                joined(removal.left).c_str());
  }
  return 0;
}

}  // namespace netif_rx
