#include "web/process_listeners.h"

#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>
#include <memory>

namespace netif_rx {

bool describe_listener(int fd, ProcessListener& out) {
  int value = 0;
  socklen_t length = sizeof value;
  if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &value, &length) != 0 || !value) return false;
  length = sizeof value;
  if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &value, &length) != 0 || value != SOCK_STREAM) {
    return false;
  }
  sockaddr_storage address{};
  length = sizeof address;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return false;
  out = ProcessListener{fd, address.ss_family, 0, false};
  if (address.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&address);
    out.port = ntohs(in->sin_port);
    out.ipv4_loopback = ntohl(in->sin_addr.s_addr) == INADDR_LOOPBACK;
    return true;
  }
  if (address.ss_family == AF_INET6) {
    out.port = ntohs(reinterpret_cast<const sockaddr_in6*>(&address)->sin6_port);
    return true;
  }
  return false;
}

std::vector<ProcessListener> process_listeners() {
  std::vector<ProcessListener> out;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir("/proc/self/fd"), ::closedir);
  if (!dir) return out;
  while (const dirent* entry = ::readdir(dir.get())) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == ::dirfd(dir.get())) continue;
    ProcessListener listener;
    if (describe_listener(static_cast<int>(fd), listener)) out.push_back(listener);
  }
  return out;
}

}  // namespace netif_rx
