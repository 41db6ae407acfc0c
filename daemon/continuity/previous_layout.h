// The probe of another layout (an exporter of another version) found beside
// this layout's pins: when its program obeys the control map (layout 3 on)
// and the maps whose counts matter have the names and shapes this exporter
// knows, the new exporter hands the counting over to its own program and
// then carries the previous probe's counts into its own maps
// (continuity/layout_carry.h). Maps of names it does not know are not read; a
// known name of another shape is never read as this layout's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "continuity/carried_counts.h"
#include "util/unique_fd.h"

namespace netif_rx {

struct PreviousLayout {
  std::string layout;  // e.g. "v3"
  UniqueFd link;       // its last descriptor here: closing it detaches the program
  UniqueFd program;
  std::uint32_t program_id = 0;
  std::map<std::string, UniqueFd> maps;  // the known ones, by pin name, checked
  PreviousSettings settings;             // from its read-only data
  // Its program's generation (read-only data), when it has one: when the
  // control map names another, an exporter died after flipping the counting
  // to its own program and before re-pinning it, and nothing counted since.
  std::optional<std::uint64_t> generation;
};

// Checks what the store kept for `layout` against the control map
// `control_fd`. nullopt, with `why` set, when its counts cannot be carried.
std::optional<PreviousLayout> inspect_previous_layout(
    const std::string& layout, std::vector<std::pair<std::string, UniqueFd>>&& kept, int control_fd,
    std::string& why);

}  // namespace netif_rx
