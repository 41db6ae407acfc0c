#include "host_interfaces.h"

#include <net/if.h>

namespace netif_rx {

std::optional<InterfaceNames> list_host_interfaces() {
  struct if_nameindex* list = if_nameindex();
  if (list == nullptr) return std::nullopt;
  InterfaceNames names;
  for (const struct if_nameindex* entry = list; entry->if_index != 0; ++entry) {
    names.emplace(entry->if_index, entry->if_name);
  }
  if_freenameindex(list);
  return names;
}

}  // namespace netif_rx
