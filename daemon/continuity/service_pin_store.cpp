#include "continuity/service_pin_store.h"

#include <cerrno>
#include <cstring>

#include "continuity/probe_error.h"
#include "sys/fd_store.h"
#include "sys/passed_fds.h"
#include "util/log.h"

namespace netif_rx {
namespace {

std::string layout_prefix() { return kStoredProbePrefix + pin_layout_name() + "."; }

std::string control_name() { return std::string(kStoredProbePrefix) + "control"; }

bool is_probe_name(const std::string& name) { return name.rfind(kStoredProbePrefix, 0) == 0; }

std::vector<PassedFd> take_probe_fds() {
  try {
    return take_passed_fds(is_probe_name);
  } catch (const PassedFdsError& e) {
    throw ProbeError(std::string("--bpf.fd-store: ") + e.what());
  }
}

}  // namespace

std::unique_ptr<ServicePinStore> ServicePinStore::open() {
  if (!fd_store_reachable()) {
    throw ProbeError(
        "--bpf.fd-store: $NOTIFY_SOCKET is not set, so no service manager keeps the probe; run "
        "it from a systemd unit with Type=notify and FileDescriptorStoreMax= (as the package's "
        "unit), or use --bpf.pin-path outside systemd");
  }
  if (const auto max = fd_store_max(); max && *max == 0) {
    log::warn(
        "the unit's FileDescriptorStoreMax= is 0: systemd drops the probe's descriptors, so "
        "every restart attaches the probe afresh and the counts start from zero");
  }
  auto store = std::unique_ptr<ServicePinStore>(new ServicePinStore());
  const std::string prefix = layout_prefix();
  for (auto& passed : take_probe_fds()) {
    if (passed.name == control_name() && !store->passed_control_.valid()) {
      store->passed_control_ = std::move(passed.fd);
      store->control_stored_ = true;
      continue;
    }
    if (passed.name.rfind(prefix, 0) != 0) {
      // probe.v<layout>.<name>: another layout's, carried over or dropped.
      const std::string rest = passed.name.substr(std::strlen(kStoredProbePrefix));
      const std::size_t dot = rest.find('.');
      if (dot == std::string::npos || dot < 2 || rest[0] != 'v') {
        log::warn("dropping a descriptor of no layout from systemd's file-descriptor store",
                  {{"name", passed.name}});
        remove_stored_fds(passed.name);
        continue;
      }
      store->other_layouts_[rest.substr(0, dot)][rest.substr(dot + 1)] = std::move(passed.fd);
      continue;
    }
    store->passed_[passed.name.substr(prefix.size())] = std::move(passed.fd);
  }
  return store;
}

std::vector<std::string> ServicePinStore::names() const {
  std::vector<std::string> names;
  for (const auto& [name, fd] : passed_) names.push_back(name);
  return names;  // sorted: a std::map's order
}

UniqueFd ServicePinStore::open_fd(const std::string& name) {
  const auto found = passed_.find(name);
  if (found == passed_.end()) {
    errno = ENOENT;
    return UniqueFd();
  }
  return std::move(found->second);
}

void ServicePinStore::keep(const std::string& name, int fd) {
  try {
    store_fd(layout_prefix() + name, fd);
  } catch (const FdStoreError& e) {
    throw ProbeError(std::string("--bpf.fd-store: ") + e.what());
  }
  stored_.push_back(name);
}

void ServicePinStore::replace(const std::string& name, int fd) {
  // Crash between the two: the store is incomplete, the next exporter starts
  // afresh and says so.
  remove_stored_fds(layout_prefix() + name);
  keep(name, fd);
}

std::vector<std::string> ServicePinStore::other_layouts() const {
  std::vector<std::string> layouts;
  for (const auto& [layout, fds] : other_layouts_) layouts.push_back(layout);
  return layouts;
}

std::vector<std::pair<std::string, UniqueFd>> ServicePinStore::take_layout(
    const std::string& layout) {
  std::vector<std::pair<std::string, UniqueFd>> kept;
  const auto found = other_layouts_.find(layout);
  if (found == other_layouts_.end()) return kept;
  for (auto& [name, fd] : found->second) kept.emplace_back(name, std::move(fd));
  return kept;
}

void ServicePinStore::remove_layout(const std::string& layout) {
  const auto found = other_layouts_.find(layout);
  if (found == other_layouts_.end()) return;
  for (const auto& [name, fd] : found->second)
    remove_stored_fds(kStoredProbePrefix + layout + "." + name);
  other_layouts_.erase(found);
}

std::string ServicePinStore::layout_where(const std::string& layout) const {
  return "systemd's file-descriptor store (" + std::string(kStoredProbePrefix) + layout + ".*)";
}

UniqueFd ServicePinStore::open_control() {
  if (!passed_control_.valid()) errno = ENOENT;
  return std::move(passed_control_);
}

void ServicePinStore::keep_control(int fd) {
  try {
    store_fd(control_name(), fd);
  } catch (const FdStoreError& e) {
    throw ProbeError(std::string("--bpf.fd-store: ") + e.what());
  }
  control_stored_ = true;
}

void ServicePinStore::remove() {
  for (const auto& [name, fd] : passed_) remove_stored_fds(layout_prefix() + name);
  for (const auto& name : stored_) remove_stored_fds(layout_prefix() + name);
  passed_.clear();
  stored_.clear();
}

void ServicePinStore::remove_control() {
  if (control_stored_) remove_stored_fds(control_name());
  passed_control_.reset();
  control_stored_ = false;
}

std::string ServicePinStore::where(const std::string& name) const {
  return "systemd's file-descriptor store (" + layout_prefix() + name + ")";
}

std::string ServicePinStore::where() const {
  return "systemd's file-descriptor store (" + layout_prefix() + "*)";
}

std::string ServicePinStore::control_where() const {
  return "systemd's file-descriptor store (" + control_name() + ")";
}

std::string ServicePinStore::remedy() const {
  return "stop the unit (systemctl stop) to empty its store";
}

void release_stored_probe(const std::string& why) {
  if (!fd_store_reachable()) return;
  std::vector<PassedFd> stored;
  try {
    stored = take_passed_fds(is_probe_name);
  } catch (const PassedFdsError& e) {
    log::warn("cannot read the descriptors systemd passed", {{"err", e.what()}});
    return;
  }
  for (const auto& passed : stored) {
    log::info("dropping the probe kept in systemd's file-descriptor store",
              {{"name", passed.name}, {"why", why}});
    remove_stored_fds(passed.name);
  }
}

}  // namespace netif_rx
