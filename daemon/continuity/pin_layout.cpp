// The one place of the daemon that names the layout it was built with: a
// test build of another layout (tests/CMakeLists.txt) compiles it anew.
#include "continuity/pin_store.h"
#include "netif_rx.h"

namespace netif_rx {

std::string pin_layout_name() { return "v" + std::to_string(NETIF_RX_PIN_LAYOUT); }

}  // namespace netif_rx
