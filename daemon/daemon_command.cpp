#include "daemon_command.h"

#include <signal.h>
#include <spdlog/spdlog.h>

#include "app.h"
#include "config.h"
#include "version.h"

namespace netif_rx {

int run_daemon(const CliOptions& cli) {
  // 1. Configuration: any mistake ends here, before anything loads.
  Config config;
  if (cli.config_file) {
    try {
      config = load_config_file(*cli.config_file);
    } catch (const ConfigError& e) {
      spdlog::error("invalid configuration: {}", e.what());
      return 1;
    }
  }

  // 2. Signals are blocked before any thread starts, so every thread
  //    inherits the mask and only sigwait() below receives them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  // 3. Load, attach, serve.
  spdlog::info("starting netif_rx_exporter {} (revision {})", kVersion, kRevision);
  App app(config, cli);
  try {
    app.start();
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }

  // 4. Wait.
  while (true) {
    int received = 0;
    if (sigwait(&signals, &received) != 0) continue;
    if (received == SIGHUP) {
      spdlog::info("SIGHUP received; configuration reload is not supported yet, ignoring");
      continue;
    }
    spdlog::info("{} received, shutting down", received == SIGINT ? "SIGINT" : "SIGTERM");
    break;
  }
  app.stop();
  return 0;
}

}  // namespace netif_rx
