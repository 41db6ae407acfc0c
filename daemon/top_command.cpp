#include "top_command.h"

#include <cstdio>

namespace netif_rx {

int run_top(const CliOptions&) {
  std::fprintf(stderr,
               "netif_rx_exporter: error: the top command is not available in this build\n");
  return 2;
}

}  // namespace netif_rx
