// The probe pinned in a BPF filesystem, so that it outlives the exporter:
// its link, its program and every map of its BPF object, under
// <pin directory>/v<NETIF_RX_PIN_LAYOUT>/ (one file per map, named after it,
// `program` and `link`). The next exporter of the same layout adopts them and goes on
// from the same counts; pins of another layout are never read.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "probe/pin_lock.h"
#include "util/unique_fd.h"

struct bpf_object;
struct bpf_link;
struct bpf_map;

namespace netif_rx {

// The link of a pinned probe, adopted: the caller owns `link` (destroying it
// closes the descriptor; the pin keeps the probe attached).
struct AdoptedLink {
  bpf_link* link = nullptr;
  UniqueFd program;          // the attached program
  std::string program_name;  // e.g. netif_rx_btf
};

class ProbePins {
 public:
  // Locks `root` (PinLock) and removes the pins of other layouts found under
  // it (an exporter of another version left them: never read, one log line
  // each). Throws ProbeError.
  static ProbePins open(const std::string& root);

  // The pins of this layout, checked against `object`'s maps (opened and
  // configured, not loaded) and `program_names` (the programs this exporter
  // may find attached). Same layout and settings: each map of `object`
  // reuses its pinned map, and the pinned link is returned. Nothing pinned:
  // nullopt. Pinned with other settings (max_devices, namespaces, the
  // exporter's namespace, the attach mode) or incompletely (an exporter
  // killed while pinning): the pins are removed, the reason logged, nullopt.
  // Pins that are not this exporter's (unknown names, other map types or
  // key/value sizes, not a link): ProbeError, nothing touched.
  std::optional<AdoptedLink> adopt(bpf_object* object,
                                   const std::vector<std::string>& program_names);

  // Pins every map of the loaded `object`, its attached program and then
  // `link`. On failure removes what it pinned and throws ProbeError.
  void pin(bpf_object* object, int program_fd, bpf_link* link);

  // Unpins everything of this layout (the probe detaches once its last
  // descriptor closes) and removes the directories left empty.
  void remove();

  const std::string& directory() const { return directory_; }

 private:
  ProbePins(PinLock lock, std::string root, std::string directory)
      : lock_(std::move(lock)), root_(std::move(root)), directory_(std::move(directory)) {}

  // Names in this layout's directory; empty when it does not exist.
  std::vector<std::string> entries() const;
  std::string path_of(const std::string& name) const { return directory_ + "/" + name; }

  PinLock lock_;
  std::string root_;
  std::string directory_;  // root_/v<layout>
};

// The file name of `map`'s pin: its name, '.' replaced by '_' (.rodata).
std::string pin_name(const bpf_map* map);

}  // namespace netif_rx
