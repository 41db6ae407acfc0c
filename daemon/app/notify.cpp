#include "app/notify.h"

#include <systemd/sd-daemon.h>
#include <time.h>

#include <cstdlib>
#include <cstring>

#include "util/log.h"

namespace netif_rx {

std::string format_notify_message(const NotifyFields& fields) {
  std::string out;
  for (const auto& [key, value] : fields) {
    out += key;
    out += '=';
    for (char c : value) out += (c == '\n' || c == '\r') ? ' ' : c;
    out += '\n';
  }
  return out;
}

std::uint64_t monotonic_usec() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec) / 1000ULL;
}

Notifier Notifier::from_environment() {
  Notifier notifier;
  const char* socket = std::getenv("NOTIFY_SOCKET");
  notifier.enabled_ = socket != nullptr && *socket != '\0';
  std::uint64_t usec = 0;
  // 0: keep $WATCHDOG_USEC and $WATCHDOG_PID for a later look.
  const int watchdog = sd_watchdog_enabled(0, &usec);
  if (watchdog > 0 && usec > 0) {
    notifier.watchdog_ = std::chrono::microseconds(usec);
  } else if (watchdog < 0) {
    log::warn("ignoring an invalid systemd watchdog setting", {{"err", std::strerror(-watchdog)}});
  }
  return notifier;
}

void Notifier::reloading(std::string_view status) const {
  send({{"RELOADING", "1"},
        {"MONOTONIC_USEC", std::to_string(monotonic_usec())},
        {"STATUS", std::string(status)}});
}

void Notifier::send(const NotifyFields& fields) const {
  if (!enabled_) return;
  const std::string message = format_notify_message(fields);
  const int sent = sd_notify(0, message.c_str());
  if (sent < 0) {
    log::debug("notifying the service manager failed", {{"err", std::strerror(-sent)}});
  }
}

}  // namespace netif_rx
