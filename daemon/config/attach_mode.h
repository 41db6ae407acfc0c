// Which twin of the probe's program is attached: the configuration's choice
// (`attach:`) and what the probe ended up with.
#pragma once

#include <string_view>

namespace netif_rx {

enum class AttachMode {
  automatic,   // configuration only: tp_btf where the kernel has it, else tracepoint
  tp_btf,      // BTF-enabled raw tracepoint
  tracepoint,  // the classic tracepoint
};

// "auto", "tp_btf", "tracepoint": the configuration's spelling and the
// attach_type label's value.
std::string_view to_string(AttachMode mode);

}  // namespace netif_rx
