// Text from outside (a device name, a label value) made safe for a terminal:
// control characters (C0, DEL, C1) and bytes that are not UTF-8 are written
// as \xNN, and a backslash as \\, so nothing in it can move the cursor,
// recolour the screen or hide itself.
#pragma once

#include <string>
#include <string_view>

namespace netif_rx {

std::string printable(std::string_view text);

}  // namespace netif_rx
