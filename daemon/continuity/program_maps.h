// Which kernel objects a pinned program uses: how a pin is told apart from
// one that belongs to another program (a re-pin caught half-way, a carry).
#pragma once

#include <cstdint>
#include <vector>

namespace netif_rx {

// The ids of the maps `program_fd` uses (empty when it cannot be read).
std::vector<std::uint32_t> map_ids_of(int program_fd);

// The id of the map `map_fd` (0 when it cannot be read).
std::uint32_t id_of_map(int map_fd);

}  // namespace netif_rx
