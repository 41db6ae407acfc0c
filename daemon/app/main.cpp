// netif_rx_exporter: parse the command line, configure logging, dispatch.
#include <malloc.h>

#include <cstdio>
#include <iostream>

#include "app/check_command.h"
#include "app/daemon_command.h"
#include "app/logging.h"
#include "app/unpin_command.h"
#include "cli/cli.h"
#include "top/top_command.h"
#include "util/build_info.h"

namespace {

int run(int argc, char** argv) {
  using namespace netif_rx;

  CliOptions cli;
  try {
    cli = parse_cli(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const CliError& e) {
    std::fprintf(stderr, "netif_rx_exporter: error: %s\n", e.what());
    return 2;
  }
  if (cli.show_help) {
    std::cout << usage_text();
    return 0;
  }
  if (cli.show_version) {
    std::cout << version_text(build_info());
    return 0;
  }
  setup_logging(cli.log_level, cli.log_format == "json" ? LogFormat::json : LogFormat::logfmt);
  switch (cli.command) {
    case Command::check:
      return run_check(cli);
    case Command::top:
      return run_top(cli);
    case Command::unpin:
      return run_unpin(cli);
    case Command::serve:
      break;
  }
  return run_daemon(cli);
}

}  // namespace

int main(int argc, char** argv) {
  // The HTTP front runs many worker threads (docs/security.md, "Hostile clients"); with
  // glibc's default of up to 8 malloc arenas per core, each worker that
  // allocates may touch an arena of its own. Two arenas halve the resident
  // memory of a warm exporter and are ample for its few allocating threads.
  ::mallopt(M_ARENA_MAX, 2);
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "netif_rx_exporter: fatal: %s\n", e.what());
    return 1;
  }
}
