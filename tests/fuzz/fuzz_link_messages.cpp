// An rtnetlink datagram as the link watcher receives it.
#include <cstddef>
#include <cstdint>
#include <span>

#include "devices/link_messages.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const netif_rx::LinkMessages parsed = netif_rx::parse_link_messages(std::span(data, size));
  for (const netif_rx::LinkMessage& message : parsed.messages) {
    if (message.name.size() > size) __builtin_trap();
  }
  return 0;
}
