#include "continuity/pin_removal.h"

#include <unistd.h>

#include <cerrno>

#include "continuity/bpffs_directory.h"
#include "continuity/pin_lock.h"
#include "continuity/probe_error.h"
#include "util/errno_text.h"

namespace netif_rx {
namespace {

constexpr const char* kControlPin = "control";  // BpffsPinStore::control_where()

}  // namespace

PinRemoval remove_pinned_probe(const std::string& root) {
  PinRemoval removal;
  const std::optional<PinLock> lock = PinLock::acquire_existing(root);
  if (!lock) return removal;
  removal.found = true;
  for (const auto& name : list_directory(root)) {
    const std::string path = root + "/" + name;
    if (is_layout_directory(name)) {
      remove_directory(path);
      if (::access(path.c_str(), F_OK) == 0)
        throw ProbeError("cannot remove every pin under " + path + " (see the warnings above)");
    } else if (name == kControlPin) {
      if (::unlink(path.c_str()) != 0 && errno != ENOENT)
        throw ProbeError("cannot remove the pin " + path + ": " + errno_text(errno));
    } else {
      removal.left.push_back(name);
      continue;
    }
    removal.removed.push_back(name);
  }
  if (removal.left.empty() && ::rmdir(root.c_str()) != 0 && errno != ENOENT)
    throw ProbeError("cannot remove the pin directory " + root + ": " + errno_text(errno));
  return removal;
}

}  // namespace netif_rx
