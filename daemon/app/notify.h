// Tells systemd how the service is doing, through libsystemd's sd-daemon
// (sd_notify(3), sd_watchdog_enabled(3)). Outside systemd ($NOTIFY_SOCKET
// unset) every call is a no-op.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace netif_rx {

using NotifyFields = std::vector<std::pair<std::string, std::string>>;

// "KEY=value\n" per field, in order. Newlines inside values would start a new
// field, so they become spaces.
std::string format_notify_message(const NotifyFields& fields);

// CLOCK_MONOTONIC in microseconds, for MONOTONIC_USEC= with RELOADING=1.
std::uint64_t monotonic_usec();

class Notifier {
 public:
  // Reads $NOTIFY_SOCKET, and the watchdog interval systemd asks of this
  // process ($WATCHDOG_USEC for $WATCHDOG_PID) through sd_watchdog_enabled.
  static Notifier from_environment();
  Notifier() = default;

  bool enabled() const { return enabled_; }
  std::optional<std::chrono::microseconds> watchdog() const { return watchdog_; }

  // Sends one message with sd_notify; errors are logged at debug level and
  // otherwise ignored (the service manager may be gone). Thread-safe.
  void send(const NotifyFields& fields) const;

  void status(std::string_view text) const { send({{"STATUS", std::string(text)}}); }
  void ready(std::string_view status) const {
    send({{"READY", "1"}, {"STATUS", std::string(status)}});
  }
  void reloading(std::string_view status) const;
  void stopping(std::string_view status) const {
    send({{"STOPPING", "1"}, {"STATUS", std::string(status)}});
  }
  void watchdog_ping() const { send({{"WATCHDOG", "1"}}); }

 private:
  bool enabled_ = false;
  std::optional<std::chrono::microseconds> watchdog_;
};

}  // namespace netif_rx
