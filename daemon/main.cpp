// netif_rx_exporter: parse, configure logging, start, wait for a signal.
#include <signal.h>

#include <cstdio>
#include <iostream>

#include "app.h"
#include "cli.h"
#include "config.h"
#include "logging.h"
#include "version.h"

namespace {

int run(int argc, char** argv) {
  using namespace netif_rx;

  // 1. Flags and configuration: any mistake ends here, before anything loads.
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
    std::cout << "netif_rx_exporter, version " << kVersion << " (revision: " << kRevision << ")\n";
    return 0;
  }
  setup_logging(cli.log_level, cli.log_format == "json" ? LogFormat::json : LogFormat::logfmt);

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

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "netif_rx_exporter: fatal: %s\n", e.what());
    return 1;
  }
}
