// Handing the counting over from the program now counting to a newly loaded
// one, without a gap or a double count: both check the control map
// (continuity/probe_control.h); the new program is attached while the old one
// counts, one write of the control map makes it the one that counts (with
// NETIF_RX_CONTROL_HANDOVER set until every run that read the old entry is
// over), and then the old link is unpinned and closed. A probe of another layout hands over
// the same way, and then its counts are carried into the new maps
// (continuity/layout_carry.h) before the new probe is pinned and the old one's
// pins go.
#pragma once

#include <cstdint>
#include <optional>

#include "continuity/previous_layout.h"
#include "continuity/probe_pins.h"
#include "netif_rx.h"
#include "util/unique_fd.h"

struct bpf_object;

namespace netif_rx {

// What an exporter takes over from the pins.
struct Takeover {
  UniqueFd control;                     // the kept control map; invalid: none yet
  netif_rx_control active{};            // its entry: the generation now counting
  std::optional<AdoptedProbe> adopted;  // the probe of this layout now counting
  // Or the probe of another layout now counting, whose counts are carried.
  std::optional<PreviousLayout> previous;
  // The generation of the program this exporter loads (0 means none: skipped
  // where a corrupted entry would wrap to it).
  std::uint64_t next_generation() const {
    return active.generation + 1 == 0 ? 1 : active.generation + 1;
  }
};

// Makes `object` (opened, not loaded) reuse the kept control map (a new one
// when none is kept) and the adopted maps. Throws ProbeError.
void reuse_kept_maps(bpf_object* object, const Takeover& takeover);

// The program `program_fd` of the loaded `object` is attached by `link_fd`:
// makes it the one that counts, carries a previous layout's counts, then
// keeps it in `pins` (when given) in place of the adopted or previous one,
// whose link it closes. Returns the control entry written. Throws
// ProbeError, with the adopted or previous program counting again. For the
// handover, the new program reads the old one's marks in its `probe_totals`
// (adopted or of the previous layout) through `handover_totals`.
netif_rx_control hand_over(ProbePins* pins, bpf_object* object, int program_fd, int link_fd,
                           Takeover& takeover);

}  // namespace netif_rx
