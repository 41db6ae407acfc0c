#include "sys/fd_store.h"

#include <systemd/sd-daemon.h>

#include <cerrno>
#include <cstdlib>

#include "util/errno_text.h"
#include "util/log.h"

namespace netif_rx {

bool fd_store_reachable() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  return socket != nullptr && *socket != '\0';
}

std::optional<long> fd_store_max() {
  const char* text = std::getenv("FDSTORE");
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < 0) return std::nullopt;
  return value;
}

void store_fd(const std::string& name, int fd) {
  const std::string message = "FDSTORE=1\nFDNAME=" + name + "\nFDPOLL=0";
  const int sent = sd_pid_notify_with_fds(0, 0, message.c_str(), &fd, 1);
  if (sent <= 0) {
    throw FdStoreError("cannot hand " + name + " to systemd's file-descriptor store: " +
                       (sent < 0 ? errno_text(-sent) : std::string("$NOTIFY_SOCKET is not set")));
  }
}

void remove_stored_fds(const std::string& name) {
  const std::string message = "FDSTOREREMOVE=1\nFDNAME=" + name;
  const int sent = sd_notify(0, message.c_str());
  if (sent <= 0) {
    log::warn("cannot remove a descriptor from systemd's file-descriptor store",
              {{"name", name}, {"err", sent < 0 ? errno_text(-sent) : "no $NOTIFY_SOCKET"}});
  }
}

}  // namespace netif_rx
