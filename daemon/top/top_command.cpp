#include "top/top_command.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>

#include "config/config.h"
#include "top/top_device_selection.h"
#include "top/top_histogram.h"
#include "top/top_http_client.h"
#include "top/top_json.h"
#include "top/top_options.h"
#include "top/top_rate_table.h"
#include "top/top_source.h"
#include "top/top_terminal.h"
#include "util/printable.h"
#include "util/signals.h"

namespace netif_rx {
namespace {

using Clock = std::chrono::steady_clock;

// One line, whatever a remote server put in the message.
int fail(const std::string& message) {
  std::fprintf(stderr, "netif_rx_exporter: error: %s\n", printable(message).c_str());
  return 1;
}

enum class Wake { deadline, quit, resize };

// Sleeps until `deadline`, or until one of the blocked `signals` arrives.
Wake wait_until(Clock::time_point deadline, const sigset_t& signals) {
  while (true) {
    const auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) return Wake::deadline;
    const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
    const timespec timeout{static_cast<std::time_t>(nanos / 1000000000),
                           static_cast<long>(nanos % 1000000000)};
    const int received = ::sigtimedwait(&signals, nullptr, &timeout);
    if (received == SIGWINCH) return Wake::resize;
    if (received == SIGINT || received == SIGTERM) return Wake::quit;
    // EAGAIN (timeout) or EINTR: check the clock again.
  }
}

class TopRunner {
 public:
  TopRunner(const TopOptions& options, TopSource& source, const sigset_t& signals)
      : options_(options), source_(source), signals_(signals) {}

  // One table for the span, then exit.
  int once() {
    const Milliseconds span = options_.once_span();
    const TopReading before = source_.read();
    std::fprintf(stderr, "netif_rx_exporter: measuring for %s from %s\n",
                 format_duration(span).c_str(), source_.describe().c_str());
    if (wait_until(before.taken + span, signals_) == Wake::quit) {
      std::fprintf(stderr, "netif_rx_exporter: interrupted before the span ended\n");
      return 130;
    }
    const RateTable table = table_between(before, source_.read());
    write_all(STDOUT_FILENO, render(table, ""));
    return 0;
  }

  // A table every interval until SIGINT or SIGTERM.
  int live() {
    const bool terminal = options_.output == TopOutput::text && ::isatty(STDOUT_FILENO) == 1;
    LiveScreen screen(terminal);
    const std::string hint = "every " + format_duration(options_.interval) + ", Ctrl-C quits";
    TopReading before = source_.read();
    if (terminal) {
      const unsigned width = terminal_width(STDOUT_FILENO);
      const std::string what = options_.device ? "device " + printable(*options_.device)
                                               : std::string("packets per device and CPU");
      screen.draw(
          fit_to_width(what + ", from " + source_.describe() + "; " + hint, width) + "\n\n" +
          fit_to_width("the first table comes in " + format_duration(options_.interval), width) +
          "\n");
    }
    auto deadline = before.taken + options_.interval;
    std::optional<RateTable> shown;
    while (true) {
      const Wake wake = wait_until(deadline, signals_);
      if (wake == Wake::quit) return 0;
      if (wake == Wake::resize) {
        // Only a terminal is redrawn at its new width; a pipe gets no repeat.
        if (screen.terminal() && shown && !screen.draw(render(*shown, hint))) return 0;
        continue;
      }
      TopReading after = source_.read();
      shown = table_between(before, after);
      if (!screen.draw(render(*shown, hint))) return 0;  // the reader went away
      before = std::move(after);
      deadline += options_.interval;
      if (deadline < Clock::now()) deadline = Clock::now() + options_.interval;
    }
  }

 private:
  RateTable table_between(const TopReading& before, const TopReading& after) const {
    RateTable table = compute_rate_table(before, after);
    if (options_.device) select_device(table, before, after, *options_.device);
    return table;
  }

  std::string render(const RateTable& table, const std::string& hint) const {
    if (options_.output == TopOutput::json) return render_json(table, source_.describe());
    HistogramLayout layout;
    layout.width = terminal_width(STDOUT_FILENO);
    layout.source = source_.describe();
    layout.hint = hint;
    return render_histogram(table, layout);
  }

  const TopOptions& options_;
  TopSource& source_;
  const sigset_t& signals_;
};

}  // namespace

int run_top(const CliOptions& cli) {
  // 1. Flags and configuration: any mistake ends here, before anything loads.
  TopOptions options;
  try {
    options = parse_top_options(cli.command_args);
  } catch (const CliError& e) {
    std::fprintf(stderr, "netif_rx_exporter: error: %s\n", e.what());
    return 2;
  }
  if (options.show_help) {
    std::cout << top_usage_text();
    return 0;
  }
  HttpClientOptions client;
  try {
    if (options.from)
      client = top_http_client_options(options.from_options, std::getenv(kTopPasswordEnv));
  } catch (const CliError& e) {
    std::fprintf(stderr, "netif_rx_exporter: error: %s\n", e.what());
    return 2;
  }
  Config config;
  try {
    config = load_config(options.config_file);
  } catch (const ConfigError& e) {
    return fail("invalid configuration: " + std::string(e.what()));
  }
  // The exporter's progress messages would only clutter the view.
  spdlog::set_level(spdlog::level::warn);

  // 2. Signals are waited for with sigtimedwait between readings.
  const sigset_t signals = block_signals_for_waiting({SIGINT, SIGTERM, SIGWINCH});

  // 3. The source: a running exporter, or the probe, loaded as the daemon does.
  try {
    const std::unique_ptr<TopSource> source = options.from
                                                  ? make_http_source(*options.from, client)
                                                  : make_probe_source(config, options.btf_path);
    TopRunner runner(options, *source, signals);
    return options.once ? runner.once() : runner.live();
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

}  // namespace netif_rx
