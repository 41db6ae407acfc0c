#include "continuity/bpffs_pin_store.h"

#include <bpf/bpf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <string_view>

#include "continuity/bpffs_directory.h"
#include "continuity/probe_error.h"
#include "util/errno_text.h"
#include "util/log.h"
#include "util/test_hook.h"

namespace netif_rx {
namespace {

// The ending of a pin staged to replace another (BpffsPinStore::replace).
constexpr std::string_view kStagedSuffix = "_staged";  // no dot: bpffs refuses dots in names

// Why `path` could not be pinned, with what to do when the BPF filesystem is
// full (pins are kernel memory, charged to the exporter's cgroup).
ProbeError pin_failed(const std::string& path, int error) {
  std::string message = "pinning " + path + " failed: " + errno_text(error);
  if (error == ENOSPC || error == ENOMEM || error == EDQUOT) {
    message +=
        ": the BPF filesystem cannot hold the probe's pins; remove pins nothing uses there "
        "(`netif_rx_exporter unpin --bpf.pin-path=DIR` for an exporter's), give the exporter's "
        "cgroup more memory, or start without --bpf.pin-path (counts then start from zero at "
        "each restart)";
  }
  return ProbeError(message);
}

}  // namespace

std::unique_ptr<BpffsPinStore> BpffsPinStore::open(const std::string& root) {
  PinLock lock = PinLock::acquire(root);
  const std::string directory = root + "/" + pin_layout_name();
  // A replacement an exporter staged and did not rename (it died between).
  for (const auto& name : list_directory(directory)) {
    if (name.size() <= kStagedSuffix.size() ||
        name.compare(name.size() - kStagedSuffix.size(), kStagedSuffix.size(), kStagedSuffix) != 0)
      continue;
    log::info("removing a pin staged by an exporter that stopped before using it",
              {{"path", directory + "/" + name}});
    if (::unlink((directory + "/" + name).c_str()) != 0 && errno != ENOENT)
      log::warn("cannot remove a pin",
                {{"path", directory + "/" + name}, {"err", errno_text(errno)}});
  }
  return std::unique_ptr<BpffsPinStore>(new BpffsPinStore(std::move(lock), root, directory));
}

std::vector<std::string> BpffsPinStore::names() const { return list_directory(directory_); }

UniqueFd BpffsPinStore::open_fd(const std::string& name) {
  return UniqueFd(bpf_obj_get(where(name).c_str()));
}

void BpffsPinStore::keep(const std::string& name, int fd) {
  if (::mkdir(directory_.c_str(), 0700) != 0 && errno != EEXIST) {
    throw ProbeError("cannot create " + directory_ + ": " + errno_text(errno));
  }
  // A full BPF filesystem (its inodes are kernel memory, charged to the
  // cgroup): NETIF_RX_TEST_FAIL=pin.no_space in the test build, at the
  // program's pin, after the maps': what was pinned must go.
  const int error = name == "program" && test_fail("pin.no_space") ? ENOSPC
                    : bpf_obj_pin(fd, where(name).c_str()) != 0    ? errno
                                                                   : 0;
  if (error != 0) throw pin_failed(where(name), error);
}

void BpffsPinStore::replace(const std::string& name, int fd) {
  // Pinned beside, then renamed over the old pin: a crash leaves either pin
  // in place, never none (a staged pin left behind is removed at the next
  // open).
  const std::string staged = where(name) + std::string(kStagedSuffix);
  if (::unlink(staged.c_str()) != 0 && errno != ENOENT)
    throw ProbeError("removing the pin " + staged + " failed: " + errno_text(errno));
  if (bpf_obj_pin(fd, staged.c_str()) != 0) throw pin_failed(staged, errno);
  if (::rename(staged.c_str(), where(name).c_str()) != 0) {
    const int error = errno;
    ::unlink(staged.c_str());
    throw ProbeError("renaming " + staged + " over " + where(name) +
                     " failed: " + errno_text(error));
  }
}

std::vector<std::string> BpffsPinStore::other_layouts() const {
  std::vector<std::string> layouts;
  for (const auto& name : list_directory(root_)) {
    if (name != pin_layout_name() && is_layout_directory(name)) layouts.push_back(name);
  }
  return layouts;
}

std::vector<std::pair<std::string, UniqueFd>> BpffsPinStore::take_layout(
    const std::string& layout) {
  std::vector<std::pair<std::string, UniqueFd>> kept;
  for (const auto& name : list_directory(layout_where(layout))) {
    UniqueFd fd(bpf_obj_get((layout_where(layout) + "/" + name).c_str()));
    if (fd.valid()) kept.emplace_back(name, std::move(fd));
  }
  return kept;
}

void BpffsPinStore::remove_layout(const std::string& layout) {
  remove_directory(layout_where(layout));
}

UniqueFd BpffsPinStore::open_control() { return UniqueFd(bpf_obj_get(control_where().c_str())); }

void BpffsPinStore::keep_control(int fd) {
  if (bpf_obj_pin(fd, control_where().c_str()) != 0)
    throw ProbeError("pinning " + control_where() + " failed: " + errno_text(errno));
}

void BpffsPinStore::remove_control() {
  if (::unlink(control_where().c_str()) != 0 && errno != ENOENT)
    log::warn("cannot remove a pin", {{"path", control_where()}, {"err", errno_text(errno)}});
}

void BpffsPinStore::remove() {
  remove_directory(directory_);
  if (list_directory(root_).empty() && ::rmdir(root_.c_str()) != 0 && errno != ENOENT)
    log::warn("cannot remove the pin directory", {{"path", root_}, {"err", errno_text(errno)}});
}

std::string BpffsPinStore::remedy() const {
  return "remove it (rm) if nothing else uses it, or choose another --bpf.pin-path";
}

}  // namespace netif_rx
