// Removing a pinned probe on purpose (`netif_rx_exporter unpin`): an
// exporter never removes its pins on its way out, so that the next one goes
// on from the same counts; an uninstall removes them with this. Under the pin
// directory's lock (PinLock), so never while an exporter runs on them.
#pragma once

#include <string>
#include <vector>

namespace netif_rx {

struct PinRemoval {
  bool found = false;                // the directory existed
  std::vector<std::string> removed;  // what was removed: layouts (v5) and control
  std::vector<std::string> left;     // names there that are not the exporter's, left alone
};

// Removes every layout's pins (v<N>/) and the control map under `root`, then
// `root` itself when nothing else is left in it: once no descriptor of the
// probe is open, its link goes and the probe detaches. A missing `root` is no
// error (found false). Throws ProbeError (not a BPF filesystem, an exporter
// holds the lock).
PinRemoval remove_pinned_probe(const std::string& root);

}  // namespace netif_rx
