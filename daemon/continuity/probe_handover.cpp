#include "continuity/probe_handover.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <string>

#include "continuity/layout_carry.h"
#include "continuity/probe_control.h"
#include "continuity/probe_error.h"
#include "util/errno_text.h"
#include "util/log.h"
#include "util/test_hook.h"

namespace netif_rx {
namespace {

bpf_map* control_map_of(bpf_object* object) {
  bpf_map* map = nullptr;
  bpf_object__for_each_map(map, object) {
    if (is_control_map_name(bpf_map__name(map))) return map;
  }
  throw ProbeError("the BPF object has no control map (" + std::string(kControlSectionMapName) +
                   ")");
}

// When the counts start for a probe attached anew: its program's load time.
std::uint64_t load_time_ns(int program_fd) {
  bpf_prog_info info{};
  std::uint32_t length = sizeof(info);
  if (bpf_obj_get_info_by_fd(program_fd, &info, &length) != 0 || info.load_time == 0)
    return boot_time_ns();
  return info.load_time;
}

unsigned possible_cpus() {
  const int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) throw ProbeError("cannot count possible CPUs: " + errno_text(cpus));
  return static_cast<unsigned>(cpus);
}

// The old program's counted totals (`probe_totals`), where it leaves its
// handover marks; -1 when there is no old program.
int old_totals_fd(const Takeover& takeover) {
  if (takeover.adopted) {
    for (const auto& [name, fd] : takeover.adopted->maps)
      if (name == "probe_totals") return fd.get();
  }
  if (takeover.previous) {  // its shape checked (continuity/previous_layout.h)
    if (const auto found = takeover.previous->maps.find("probe_totals");
        found != takeover.previous->maps.end())
      return found->second.get();
  }
  return -1;
}

// The new program's `handover_totals` (bpf/netif_rx.bpf.c); -1 without it.
int handover_totals_fd(bpf_object* object) {
  bpf_map* view = bpf_object__find_map_by_name(object, kHandoverTotalsMapName);
  return view == nullptr ? -1 : bpf_map__fd(view);
}

// Lets the new program read the old one's handover marks in `old_totals`.
// When the kernel refuses, the handover goes on without: an event straddling
// its write may then be counted twice.
void point_at_old_totals(bpf_object* object, int old_totals) {
  const std::uint32_t entry = 0;
  const int view = handover_totals_fd(object);
  if (view >= 0 && bpf_map_update_elem(view, &entry, &old_totals, BPF_ANY) == 0) return;
  log::warn(
      "the new program cannot read the old one's handover marks: an event straddling the "
      "handover may be counted twice",
      {{"map", kHandoverTotalsMapName}, {"err", errno_text(view < 0 ? ENOENT : errno)}});
}

// Empties `handover_totals` once the handover is over, which lets the old
// layout's maps go.
void forget_old_totals(bpf_object* object) {
  const std::uint32_t entry = 0;
  const int view = handover_totals_fd(object);
  if (view < 0 || bpf_map_delete_elem(view, &entry) == 0 || errno == ENOENT) return;
  log::warn("the handover's view of the old program's totals stays",
            {{"map", kHandoverTotalsMapName}, {"err", errno_text(errno)}});
}

std::uint32_t program_id(int program_fd) {
  bpf_prog_info info{};
  std::uint32_t length = sizeof(info);
  if (program_fd < 0 || bpf_obj_get_info_by_fd(program_fd, &info, &length) != 0) return 0;
  return info.id;
}

// Pins the new program in place of the adopted one (its pins again when
// that fails part way), or pins the probe anew.
void keep(ProbePins& pins, bpf_object* object, int program_fd, int link_fd, int control_fd,
          const Takeover& takeover) {
  test_hook("handover.before_repin");
  if (takeover.adopted) {
    try {
      pins.replace(object, program_fd, link_fd);
    } catch (const ProbeError& e) {
      try {
        pins.restore(object, *takeover.adopted);
      } catch (const ProbeError& again) {
        throw ProbeError(std::string(e.what()) + "; pinning the adopted probe again failed too (" +
                         again.what() + "): the next exporter starts from zero");
      }
      throw;
    }
  } else {
    pins.pin(object, program_fd, link_fd, control_fd, takeover.control.valid());
  }
  test_hook("handover.after_repin");
}

// After a step of the handover failed: the adopted or previous program
// counts again, its maps untouched: its generation first, then the second
// word, one word per write as in hand_over(). An event whose two runs
// straddle the first write (nanoseconds apart) is counted by neither: the
// old program ran first and saw the new generation. Returns the error to
// throw, which says so.
ProbeError rolled_back(int control_fd, const Takeover& takeover, const netif_rx_control& written,
                       const ProbeError& why) {
  write_control(control_fd, {takeover.active.generation, written.counting_since_ns});
  write_control(control_fd, takeover.active);
  return ProbeError(
      std::string("the handover failed and was rolled back: the ") +
      (takeover.adopted ? "adopted probe" : "probe of layout " + takeover.previous->layout) +
      " counts again, its pins kept (" + why.what() + ")");
}

}  // namespace

void reuse_kept_maps(bpf_object* object, const Takeover& takeover) {
  // The object keeps its own descriptor of the map it reuses.
  const UniqueFd created = takeover.control.valid() ? UniqueFd() : create_control_map();
  const int control = takeover.control.valid() ? takeover.control.get() : created.get();
  if (int err = bpf_map__reuse_fd(control_map_of(object), control); err != 0)
    throw ProbeError("reusing the probe's control map failed: " + errno_text(err));
  if (takeover.adopted) ProbePins::reuse(object, *takeover.adopted);
}

netif_rx_control hand_over(ProbePins* pins, bpf_object* object, int program_fd, int link_fd,
                           Takeover& takeover) {
  const int control_fd = bpf_map__fd(control_map_of(object));
  const bool adopted = takeover.adopted.has_value();
  const bool carried = takeover.previous.has_value();
  const netif_rx_control counting{takeover.next_generation(),
                                  (adopted || carried) && takeover.active.counting_since_ns != 0 &&
                                          takeover.active.counting_since_ns <= boot_time_ns()
                                      ? takeover.active.counting_since_ns
                                      : load_time_ns(program_fd)};
  const int old_totals = old_totals_fd(takeover);
  if (old_totals >= 0) point_at_old_totals(object, old_totals);
  netif_rx_control handing_over = counting;
  handing_over.counting_since_ns |= NETIF_RX_CONTROL_HANDOVER;
  // Each write changes one of the entry's two words (the kernel copies an
  // aligned word whole), so that no program reads a mix of two entries: the
  // new generation beside the old second word would count an event without
  // looking for the old program's mark.
  netif_rx_control written = takeover.active;
  const auto write = [&](const netif_rx_control& entry) {
    write_control(control_fd, entry);
    written = entry;
  };
  CarrySummary carry;
  try {
    // The flag first: the counting program marks each event it counts from
    // then on (its view of older marks is empty once its own handover was
    // over; earlier builds mark every event and read only the generation).
    // After a grace period every run that could read the new generation
    // below starts after the flag's write and sees it, and so did the old
    // program's run of the same event.
    write({takeover.active.generation, handing_over.counting_since_ns});
    test_hook("handover.after_flag");
    wait_for_running_programs();
    write(handing_over);  // the new program counts from here
    test_hook("handover.after_flip");
    // Every run that read the entry before the write is over: no event is
    // counted by the old program and then by the new one any more, and the
    // old maps no longer change (the carry below reads them). The old
    // program stays attached until this is cleared (see claim_event()).
    wait_for_running_programs();
    write(counting);
    if (old_totals >= 0) forget_old_totals(object);
    if (carried) {
      test_hook("handover.before_carry");
      carry = carry_previous_layout(*takeover.previous, object, possible_cpus());
    }
    if (pins != nullptr) keep(*pins, object, program_fd, link_fd, control_fd, takeover);
  } catch (const ProbeError& e) {
    if (!adopted && !carried) throw;
    throw rolled_back(control_fd, takeover, written, e);
  }
  if (carried) {
    // Pinned first: a crash between the two leaves this layout's complete
    // pins, whose start drops the previous layout's as carried already.
    if (pins != nullptr) pins->remove_layout(takeover.previous->layout);
    log::info("counting handed over from a probe of another layout; its counts are carried over",
              {{"from_layout", takeover.previous->layout},
               {"to_layout", pin_layout_name()},
               {"from_program_id", std::to_string(takeover.previous->program_id)},
               {"to_program_id", std::to_string(program_id(program_fd))},
               {"devices", std::to_string(carry.devices)},
               {"names", std::to_string(carry.names)},
               {"removed_block_slots", std::to_string(carry.slots_without_device)},
               {"removed_over_capacity", std::to_string(carry.devices_over_capacity)}});
    takeover.previous.reset();  // its link's last descriptor: it detaches
  }
  if (adopted) {
    log::info("counting handed over to this exporter's program; the adopted one is detached",
              {{"from_program_id", std::to_string(program_id(takeover.adopted->program.get()))},
               {"to_program_id", std::to_string(program_id(program_fd))},
               {"generation", std::to_string(counting.generation)}});
  }
  takeover.adopted.reset();  // its link's last descriptor: it detaches
  return counting;
}

}  // namespace netif_rx
