// The systemd notify protocol (sd_notify(3)), spoken directly: one datagram
// per message to the unix socket named by $NOTIFY_SOCKET. Without it, every
// call is a no-op, so the daemon is silent outside systemd.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/unique_fd.h"

namespace netif_rx {

using NotifyFields = std::vector<std::pair<std::string, std::string>>;

// "KEY=value\n" per field, in order. Newlines inside values would start a new
// field, so they become spaces.
std::string format_notify_message(const NotifyFields& fields);

// CLOCK_MONOTONIC in microseconds, for MONOTONIC_USEC= with RELOADING=1.
std::uint64_t monotonic_usec();

// The watchdog interval systemd asks for: $WATCHDOG_USEC, when $WATCHDOG_PID is
// unset or names this process. nullopt when there is none or it is invalid.
std::optional<std::chrono::microseconds> watchdog_interval_from(const char* watchdog_usec,
                                                                const char* watchdog_pid,
                                                                long self_pid);

class Notifier {
 public:
  // Reads $NOTIFY_SOCKET, $WATCHDOG_USEC and $WATCHDOG_PID.
  static Notifier from_environment();
  // A notifier that sends to `socket_path` ("@name" for the abstract namespace).
  explicit Notifier(std::string socket_path,
                    std::optional<std::chrono::microseconds> watchdog = std::nullopt);
  Notifier() = default;

  bool enabled() const { return !socket_path_.empty(); }
  std::optional<std::chrono::microseconds> watchdog() const { return watchdog_; }

  // Sends one message; errors are logged at debug level and otherwise
  // ignored (the service manager may be gone). Thread-safe.
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
  std::string socket_path_;
  std::optional<std::chrono::microseconds> watchdog_;
  UniqueFd fd_;
};

}  // namespace netif_rx
