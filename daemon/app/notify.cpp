#include "app/notify.h"

#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
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

std::optional<std::chrono::microseconds> watchdog_interval_from(const char* watchdog_usec,
                                                                const char* watchdog_pid,
                                                                long self_pid) {
  if (watchdog_usec == nullptr || *watchdog_usec == '\0') return std::nullopt;
  if (watchdog_pid != nullptr && *watchdog_pid != '\0') {
    char* end = nullptr;
    const long pid = std::strtol(watchdog_pid, &end, 10);
    if (*end != '\0' || pid != self_pid) return std::nullopt;
  }
  char* end = nullptr;
  const unsigned long long usec = std::strtoull(watchdog_usec, &end, 10);
  if (*end != '\0' || usec == 0) return std::nullopt;
  return std::chrono::microseconds(usec);
}

Notifier Notifier::from_environment() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  if (socket == nullptr || *socket == '\0') return Notifier();
  return Notifier(socket, watchdog_interval_from(std::getenv("WATCHDOG_USEC"),
                                                 std::getenv("WATCHDOG_PID"), ::getpid()));
}

Notifier::Notifier(std::string socket_path, std::optional<std::chrono::microseconds> watchdog)
    : socket_path_(std::move(socket_path)), watchdog_(watchdog) {
  if (socket_path_.empty()) return;
  if ((socket_path_[0] != '/' && socket_path_[0] != '@') ||
      socket_path_.size() >= sizeof(sockaddr_un::sun_path)) {
    log::warn("NOTIFY_SOCKET is not a unix socket path; not notifying the service manager",
              {{"notify_socket", socket_path_}});
    socket_path_.clear();
    return;
  }
  fd_.reset(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd_.valid()) {
    log::warn("cannot create the notify socket", {{"err", std::strerror(errno)}});
    socket_path_.clear();
  }
}

void Notifier::reloading(std::string_view status) const {
  send({{"RELOADING", "1"},
        {"MONOTONIC_USEC", std::to_string(monotonic_usec())},
        {"STATUS", std::string(status)}});
}

void Notifier::send(const NotifyFields& fields) const {
  if (!enabled()) return;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, socket_path_.data(), socket_path_.size());
  if (address.sun_path[0] == '@') address.sun_path[0] = '\0';
  const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + socket_path_.size());
  const std::string message = format_notify_message(fields);
  // sendto on one datagram socket is atomic: no lock needed across threads.
  if (::sendto(fd_.get(), message.data(), message.size(), MSG_NOSIGNAL,
               reinterpret_cast<const sockaddr*>(&address), length) < 0) {
    log::debug("notifying the service manager failed",
               {{"notify_socket", socket_path_}, {"err", std::strerror(errno)}});
  }
}

}  // namespace netif_rx
