// The probe pinned, so that it outlives the exporter: its link, its program
// and every map of its BPF object, kept in a PinStore (a BPF filesystem's
// <pin directory>/v<NETIF_RX_PIN_LAYOUT>/, or systemd's file-descriptor store)
// under one name per map (named after it), `program` and `link`; the control
// map (probe_control) beside them, outside any layout. The next exporter of
// the same layout adopts the maps, attaches its own program and hands the
// counting over to it (continuity/probe_control.h); pins of another layout are
// never adopted as this layout's: their counts are carried over
// (continuity/previous_layout.h), or they are removed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "continuity/pin_store.h"
#include "continuity/probe_control.h"
#include "util/unique_fd.h"

struct bpf_object;
struct bpf_link;
struct bpf_map;

namespace netif_rx {

// The map through which a new program reads the handover marks of the one it
// takes the counting over from (bpf/netif_rx.bpf.c): never pinned.
constexpr const char* kHandoverTotalsMapName = "handover_totals";

// A pinned probe, adopted: its maps to reuse and the link to retire once the
// counting is handed over (closing its descriptor leaves the probe attached
// while the pin keeps it).
struct AdoptedProbe {
  UniqueFd link;
  UniqueFd program;          // the attached program
  std::string program_name;  // e.g. netif_rx_btf
  // Every pinned map of the object, by pin name.
  std::vector<std::pair<std::string, UniqueFd>> maps;
  // The generation in the pinned read-only data (nullopt: not read); another
  // than the control map's means the pinned program does not count (idle).
  // 0: pins of two programs (a re-pin caught half-way), neither counting.
  std::optional<std::uint64_t> generation;
};

class ProbePins {
 public:
  // Pins in the BPF filesystem directory `root` (BpffsPinStore: locked, pins
  // of other layouts removed). Throws ProbeError.
  static ProbePins open(const std::string& root);
  // Pins in systemd's file-descriptor store (ServicePinStore). Throws
  // ProbeError.
  static ProbePins in_service_store();

  // The control map kept beside the layouts, checked; invalid when there is
  // none. Throws ProbeError for one that is not the probe's.
  UniqueFd open_control();

  // The pins of this layout, checked against `object`'s maps (opened and
  // configured, not loaded)
  // and `program_names` (the programs this exporter may find attached). Same
  // layout and settings: the pinned maps and link are returned. Nothing pinned:
  // nullopt. Pinned with other settings (max_devices, namespaces, the
  // exporter's namespace, the attach mode) or incompletely (an exporter
  // killed while pinning): the pins are removed, the reason logged, nullopt.
  // Pins that are not this exporter's (unknown names, other map types or
  // key/value sizes, not a link): ProbeError, nothing touched.
  // `generation_bytes` (offset and size in the read-only data) is not
  // compared: the pinned program's generation may lag the control map's when
  // an exporter died between the handover's write and its pins.
  std::optional<AdoptedProbe> adopt(bpf_object* object,
                                    const std::vector<std::string>& program_names,
                                    std::pair<std::size_t, std::size_t> generation_bytes);

  // Makes the maps of `object` (opened, not loaded) reuse the adopted ones,
  // except the read-only data, which is the new program's own. Throws
  // ProbeError.
  static void reuse(bpf_object* object, const AdoptedProbe& adopted);

  // Pins the control map `control_fd` unless `control_kept`, then every other
  // map of the loaded `object`, its attached program and then `link`. On
  // failure removes what it pinned and throws ProbeError.
  void pin(bpf_object* object, int program_fd, int link_fd, int control_fd, bool control_kept);

  // After a handover: pins the new program's own maps (its read-only data),
  // the program and then the link in place of the adopted ones. Throws
  // ProbeError.
  void replace(bpf_object* object, int program_fd, int link_fd);

  // After a replace() that failed part way: pins the adopted probe's own
  // read-only data, program and link again, so that the pinned program is the
  // one the pinned link attaches (else the next exporter could not adopt them
  // and would start from zero). Throws ProbeError.
  void restore(bpf_object* object, const AdoptedProbe& adopted);

  // The other layouts kept beside this one, and what is kept for one.
  std::vector<std::string> other_layouts() const { return store_->other_layouts(); }
  std::vector<std::pair<std::string, UniqueFd>> take_layout(const std::string& layout) {
    return store_->take_layout(layout);
  }
  // Drops another layout's pins (its probe detaches once its last descriptor
  // closes).
  void remove_layout(const std::string& layout) { store_->remove_layout(layout); }
  std::string layout_where(const std::string& layout) const { return store_->layout_where(layout); }

  // True when the service manager, not the exporter, drops the pins (systemd's
  // store): a clean stop always leaves them.
  bool managed_by_service_manager() const { return store_->managed_by_service_manager(); }

  // Where the pins are, for messages.
  std::string where() const { return store_->where(); }

 private:
  explicit ProbePins(std::unique_ptr<PinStore> store) : store_(std::move(store)) {}

  std::unique_ptr<PinStore> store_;
};

// The file name of `map`'s pin: its name, '.' replaced by '_' (.rodata).
std::string pin_name(const bpf_map* map);

}  // namespace netif_rx
