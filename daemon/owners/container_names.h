// Container names from containers/storage's index of a storage root,
// <root>/containers.json (a JSON array of {"id": ..., "names": [...], ...}),
// as podman keeps it beside its containers' bundles
// (/var/lib/containers/storage/overlay-containers). Parsed with the bounded
// JSON reader; the caller bounds the text's size.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

namespace netif_rx {

inline constexpr std::size_t kMaxContainerIndexBytes = 16 << 20;

// Container id → its first name; empty for text that is not such an array.
std::map<std::string, std::string> parse_container_names(std::string_view json_text);

}  // namespace netif_rx
