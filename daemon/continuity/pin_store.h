// Where the descriptors of a pinned probe are kept while no exporter runs: a
// directory on a BPF filesystem (BpffsPinStore) or systemd's
// file-descriptor store (ServicePinStore). ProbePins checks and adopts what
// either holds, alike. Beside each layout's descriptors, one of every layout:
// the control map (continuity/probe_control.h), under a name no layout changes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "util/unique_fd.h"

namespace netif_rx {

class PinStore {
 public:
  virtual ~PinStore() = default;

  // The names kept for this layout (NETIF_RX_PIN_LAYOUT), sorted.
  virtual std::vector<std::string> names() const = 0;
  // A new descriptor of what is kept under `name`; invalid (and errno set)
  // when it cannot be opened.
  virtual UniqueFd open_fd(const std::string& name) = 0;
  // Keeps `fd` under `name`. Throws ProbeError.
  virtual void keep(const std::string& name, int fd) = 0;
  // Keeps `fd` under `name` instead of what was kept there. Throws ProbeError.
  virtual void replace(const std::string& name, int fd) = 0;
  // A new descriptor of the control map kept beside the layouts; invalid (and
  // errno set) when there is none.
  virtual UniqueFd open_control() = 0;
  // Keeps `fd` as the control map. Throws ProbeError.
  virtual void keep_control(int fd) = 0;
  // Drops the control map.
  virtual void remove_control() = 0;
  // Drops everything kept for this layout (the probe detaches once its last
  // descriptor closes).
  virtual void remove() = 0;
  // The other layouts kept beside this one (their names, e.g. "v3"), sorted:
  // an exporter of another version's probe, whose counts this one carries
  // over (continuity/previous_layout.h) or drops.
  virtual std::vector<std::string> other_layouts() const = 0;
  // Every descriptor kept for the other layout `layout`, by name; one that
  // cannot be opened is left out.
  virtual std::vector<std::pair<std::string, UniqueFd>> take_layout(const std::string& layout) = 0;
  // Drops everything kept for the other layout `layout`.
  virtual void remove_layout(const std::string& layout) = 0;
  // Where the other layout `layout` is kept, for messages.
  virtual std::string layout_where(const std::string& layout) const = 0;

  // True when the store outlives a clean stop of the exporter by itself (the
  // service manager decides when it is dropped): the exporter never removes
  // it on its way out.
  virtual bool managed_by_service_manager() const = 0;

  // Where `name` is kept, for messages: a path, or a name in the store.
  virtual std::string where(const std::string& name) const = 0;
  // Where this layout is kept, for messages.
  virtual std::string where() const = 0;
  // Where the control map is kept, for messages.
  virtual std::string control_where() const = 0;
  // How to get rid of what this exporter refuses to adopt, for messages.
  virtual std::string remedy() const = 0;
};

// The name of this layout's pins: "v" NETIF_RX_PIN_LAYOUT.
std::string pin_layout_name();

}  // namespace netif_rx
