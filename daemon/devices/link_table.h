// The links of the exporter's own network namespace, ifindex -> name, kept
// from rtnetlink messages. Pure state: the socket side is link_watcher.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "devices/link_messages.h"

namespace netif_rx {

struct LinkInfo {
  std::string name;
  // Which device holds the ifindex: a new number each time the ifindex
  // appears, unchanged by a rename. Two views with the same instance for an
  // ifindex saw the same device.
  std::uint64_t instance = 0;
  // What the per-CPU device class needs: a parent device in sysfs
  // (/sys/class/net/NAME/device: a NIC, virtio-net, ...), read once when the
  // ifindex appears; the kind, lower device and master of its last message.
  bool has_parent_device = false;
  std::string kind{};
  std::uint32_t lower_ifindex = 0;
  std::uint32_t master_ifindex = 0;
};

using LinkView = std::unordered_map<std::uint32_t, LinkInfo>;  // by ifindex

// Whether a link of the exporter's namespace has a parent device in sysfs.
using ParentDeviceCheck = std::function<bool(const std::string& name)>;
// /sys/class/net/NAME/device exists.
bool sysfs_has_parent_device(const std::string& name);

class LinkTable {
 public:
  // `parent_device`: asked once per new ifindex (none: no link has one).
  explicit LinkTable(ParentDeviceCheck parent_device = {})
      : parent_device_(std::move(parent_device)) {}

  // Applies one event; returns the ifindexes whose device is gone.
  std::vector<std::uint32_t> apply(const LinkMessage& message);
  // Replaces the view with a full dump; returns the ifindexes that are gone.
  std::vector<std::uint32_t> replace(const std::vector<LinkMessage>& dump);
  // Adds and updates the links of a dump that may miss some (interrupted):
  // removes none.
  void merge(const std::vector<LinkMessage>& dump);

  const LinkView& view() const { return view_; }

 private:
  void upsert(const LinkMessage& message);

  ParentDeviceCheck parent_device_;
  LinkView view_;
  std::uint64_t next_instance_ = 1;
};

// How the poller names a device of its own namespace, given the view taken
// before reading the map and the one taken after.
struct HostName {
  enum class Kind {
    show,     // the same device was live before and after: `name`
    gone,     // removed, moved out or replaced during the poll
    unknown,  // in neither view: ask the kernel
  };
  Kind kind = Kind::unknown;
  std::string name;
  bool physical = false;  // show: see physical_link
};

// A physical device: one with a parent device in sysfs, a bond (or team) of
// which a port is one, a VLAN on one. Per-CPU series are kept for these by
// default (per_cpu.devices: physical).
bool physical_link(const LinkView& view, std::uint32_t ifindex);
HostName resolve_host_name(std::uint32_t ifindex, const LinkView& before, const LinkView& after);

}  // namespace netif_rx
