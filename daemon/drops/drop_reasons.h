// The kernel's drop reasons (enum skb_drop_reason), by value, from its BTF:
// the enum's values differ between kernels and builds, so no name is
// compiled in. And which of them the exporter counts on the receive path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netif_rx {

// One enumerator as BTF holds it.
struct EnumValue {
  std::string name;  // e.g. SKB_DROP_REASON_NO_SOCKET
  std::int64_t value = 0;
};

struct DropReasonTable {
  // Index = the reason's value (below NETIF_RX_DROP_REASONS): its name
  // without the SKB_DROP_REASON_ prefix, e.g. NO_SOCKET; empty: no reason.
  std::vector<std::string> names;
  // The reasons counted on the receive path (see is_transmit_reason).
  std::vector<bool> counted;
  // SKB_DROP_REASON_CPU_BACKLOG's value (Linux 5.18 and later).
  std::optional<std::uint32_t> backlog;
};

// The receive-path table from the enum's enumerators: names with the prefix
// SKB_DROP_REASON_ and a value below NETIF_RX_DROP_REASONS; MAX and the
// subsystem mask are not reasons. Every reason is counted but the transmit
// path's and QUEUE_PURGE (is_transmit_reason).
DropReasonTable drop_reason_table(const std::vector<EnumValue>& enumerators);

// A reason of the transmit path (qdiscs, neighbours, tc egress, a device
// not ready or its ring full, output routes, ...) or of a queue purged
// without a packet being received: not counted as a receive drop.
bool is_transmit_reason(std::string_view name);

// The enumerators of enum skb_drop_reason in the BTF at `btf_path` (at most
// 4096, names at most 64 bytes). Nullopt with `error` set when the file
// cannot be read; an empty vector when the kernel has no such enum (before
// Linux 5.17).
std::optional<std::vector<EnumValue>> read_drop_reason_enum(const std::string& btf_path,
                                                            std::string& error);

}  // namespace netif_rx
