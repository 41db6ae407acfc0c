#include "app/daemon_command.h"

#include <signal.h>
#include <spdlog/spdlog.h>

#include "app/app.h"
#include "app/kernel_requirement.h"
#include "app/notify.h"
#include "config/config.h"
#include "util/log.h"
#include "util/signals.h"
#include "util/test_hook.h"
#include "version.h"
#include "web/web_config.h"

namespace netif_rx {
namespace {

// SIGHUP: re-read --config.file (and --web.config.file). A bad file keeps the
// running configuration.
void reload(App& app, const CliOptions& cli, const Notifier& notifier) {
  log::info("reloading the configuration", {{"signal", "SIGHUP"}});
  notifier.reloading("reloading the configuration");
  app.reload_web_config();
  bool ok = true;
  if (cli.config_file) {
    try {
      Config next = load_config_file(*cli.config_file);
      for (const auto& warning : next.warnings) log::warn(warning);
      test_hook("reload");
      app.reload(next);
    } catch (const ConfigError& e) {
      log::error("configuration reload failed, keeping the running configuration",
                 {{"err", e.what()}});
      ok = false;
    }
  }
  app.record_reload(ok);
  notifier.ready(ok ? "serving; configuration reloaded"
                    : "serving; configuration reload failed, see the log");
}

}  // namespace

int run_daemon(const CliOptions& cli) {
  const Notifier notifier = Notifier::from_environment();
  if (cli.deprecated_keep_pins) {
    log::warn(
        "--bpf.keep-pins is deprecated and does nothing: with --bpf.pin-path every stop keeps "
        "the pins; netif_rx_exporter unpin removes them");
  }

  // 1. Configuration: any mistake ends here, before anything loads.
  Config config;
  try {
    config = load_config(cli.config_file);
    for (const auto& warning : config.warnings) log::warn(warning);
  } catch (const ConfigError& e) {
    log::error("invalid configuration", {{"err", e.what()}});
    notifier.status("invalid configuration");
    return 1;
  }
  if (cli.web_config_file) {
    try {
      (void)load_web_config_file(*cli.web_config_file);  // certificates are checked at start
    } catch (const ConfigError& e) {
      log::error("invalid web configuration", {{"err", e.what()}});
      notifier.status("invalid web configuration");
      return 1;
    }
  }

  if (const std::string too_old = kernel_too_old(running_kernel_release()); !too_old.empty()) {
    log::error("unsupported kernel", {{"err", too_old}});
    notifier.status("unsupported kernel");
    return 1;
  }

  // 2. Signals are blocked before any thread starts, so every thread
  //    inherits the mask and only sigwait() below receives them.
  const sigset_t signals = block_signals_for_waiting({SIGINT, SIGTERM, SIGHUP});

  // 3. Load, attach, poll once, serve; READY=1 only then.
  log::info("starting netif_rx_exporter", {{"version", kVersion},
                                           {"branch", kBranch},
                                           {"revision", kRevision},
                                           {"build_date", kBuildDate}});
  App app(config, cli, &notifier);
  try {
    app.start();
  } catch (const std::exception& e) {
    log::error("failed to start", {{"err", e.what()}});
    notifier.status(std::string("failed to start: ") + e.what());
    return 1;
  }
  notifier.ready("serving");

  // 4. Wait.
  while (true) {
    int received = 0;
    if (sigwait(&signals, &received) != 0) continue;
    if (received == SIGHUP) {
      reload(app, cli, notifier);
      continue;
    }
    log::info("shutting down", {{"signal", received == SIGINT ? "SIGINT" : "SIGTERM"}});
    break;
  }
  notifier.stopping("shutting down");
  test_hook("shutdown");
  app.stop();
  return 0;
}

}  // namespace netif_rx
