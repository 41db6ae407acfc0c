#include "devices/netns.h"

#include <sys/stat.h>

namespace netif_rx {

std::optional<std::uint32_t> current_netns_inum() {
  struct stat st {};
  if (::stat("/proc/self/ns/net", &st) != 0) return std::nullopt;
  return static_cast<std::uint32_t>(st.st_ino);
}

}  // namespace netif_rx
