// The links of the exporter's own network namespace, ifindex -> name, kept
// from rtnetlink messages. Pure state: the socket side is link_watcher.
#pragma once

#include <cstdint>
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
};

using LinkView = std::unordered_map<std::uint32_t, LinkInfo>;  // by ifindex

class LinkTable {
 public:
  // Applies one event; returns the ifindexes whose device is gone.
  std::vector<std::uint32_t> apply(const LinkMessage& message);
  // Replaces the view with a full dump; returns the ifindexes that are gone.
  std::vector<std::uint32_t> replace(const std::vector<LinkMessage>& dump);

  const LinkView& view() const { return view_; }

 private:
  void upsert(std::uint32_t ifindex, const std::string& name);

  LinkView view_;
  std::uint64_t next_instance_ = 1;
};

// How the poller names a device of its own namespace, given the view taken
// before reading the map and the one taken after.
struct HostName {
  enum class Kind {
    show,     // the same device was live before and after: `name`
    skip,     // removed or replaced during the poll: leave it out this time
    unknown,  // in neither view: ask the kernel
  };
  Kind kind = Kind::unknown;
  std::string name;
};
HostName resolve_host_name(std::uint32_t ifindex, const LinkView& before, const LinkView& after);

}  // namespace netif_rx
