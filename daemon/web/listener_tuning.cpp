#include "web/listener_tuning.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>

#include "web/process_listeners.h"

namespace netif_rx {

int defer_accept_on_listeners(const std::vector<int>& ports, int seconds) {
  int set = 0;
  for (const auto& listener : process_listeners()) {
    if (std::find(ports.begin(), ports.end(), listener.port) == ports.end()) continue;
    if (::setsockopt(listener.fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &seconds, sizeof seconds) == 0) {
      ++set;
    }
  }
  return set;
}

unsigned long raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    (void)::setrlimit(RLIMIT_NOFILE, &limit);
    (void)::getrlimit(RLIMIT_NOFILE, &limit);
  }
  return limit.rlim_cur;
}

}  // namespace netif_rx
