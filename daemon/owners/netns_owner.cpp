#include "owners/netns_owner.h"

namespace netif_rx {

std::string_view to_string(OwnerKind kind) {
  switch (kind) {
    case OwnerKind::host:
      return "host";
    case OwnerKind::pod:
      return "pod";
    case OwnerKind::container:
      return "container";
    case OwnerKind::named:
      return "named";
    case OwnerKind::ambiguous:
      return "ambiguous";
    case OwnerKind::unknown:
      break;
  }
  return "unknown";
}

}  // namespace netif_rx
