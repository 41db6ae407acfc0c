#include "devices/link_table.h"

#include <sys/stat.h>

#include <unordered_set>

namespace netif_rx {

bool sysfs_has_parent_device(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    return false;
  }
  struct stat info {};
  return ::stat(("/sys/class/net/" + name + "/device").c_str(), &info) == 0;
}

void LinkTable::upsert(const LinkMessage& message) {
  auto [it, inserted] = view_.try_emplace(message.ifindex);
  LinkInfo& link = it->second;
  if (inserted) {
    link.instance = next_instance_++;
    link.has_parent_device = parent_device_ && parent_device_(message.name);
  }
  link.name = message.name;
  link.kind = message.link_kind;
  link.lower_ifindex = message.lower_ifindex;
  link.master_ifindex = message.master_ifindex;
}

std::vector<std::uint32_t> LinkTable::apply(const LinkMessage& message) {
  if (message.ifindex == 0) return {};
  if (message.kind == LinkMessage::Kind::link && !message.name.empty()) {
    upsert(message);
  } else if (message.kind == LinkMessage::Kind::removed) {
    view_.erase(message.ifindex);
    return {message.ifindex};
  }
  return {};
}

void LinkTable::merge(const std::vector<LinkMessage>& dump) {
  for (const auto& message : dump) {
    if (message.kind != LinkMessage::Kind::link || message.ifindex == 0 || message.name.empty()) {
      continue;
    }
    upsert(message);
  }
}

std::vector<std::uint32_t> LinkTable::replace(const std::vector<LinkMessage>& dump) {
  std::unordered_set<std::uint32_t> present;
  for (const auto& message : dump) {
    if (message.kind != LinkMessage::Kind::link || message.ifindex == 0 || message.name.empty()) {
      continue;
    }
    present.insert(message.ifindex);
    upsert(message);
  }
  std::vector<std::uint32_t> gone;
  for (auto it = view_.begin(); it != view_.end();) {
    if (present.count(it->first)) {
      ++it;
    } else {
      gone.push_back(it->first);
      it = view_.erase(it);
    }
  }
  return gone;
}

namespace {

bool physical_at(const LinkView& view, std::uint32_t ifindex, int depth) {
  const auto found = view.find(ifindex);
  if (found == view.end() || depth > 4) return false;
  const LinkInfo& link = found->second;
  if (link.has_parent_device) return true;
  if (link.kind == "vlan") return physical_at(view, link.lower_ifindex, depth + 1);
  if (link.kind == "bond" || link.kind == "team") {
    for (const auto& [port_index, port] : view) {
      if (port.master_ifindex == ifindex && physical_at(view, port_index, depth + 1)) return true;
    }
  }
  return false;
}

}  // namespace

bool physical_link(const LinkView& view, std::uint32_t ifindex) {
  return physical_at(view, ifindex, 0);
}

HostName resolve_host_name(std::uint32_t ifindex, const LinkView& before, const LinkView& after) {
  const auto now = after.find(ifindex);
  // One view for both (nothing changed during the poll): one lookup.
  const auto then = &before == &after ? now : before.find(ifindex);
  if (now != after.end()) {
    if (then == before.end() || then->second.instance == now->second.instance) {
      return {HostName::Kind::show, now->second.name, physical_link(after, ifindex)};
    }
    return {HostName::Kind::gone, {}};
  }
  if (then != before.end()) return {HostName::Kind::gone, {}};
  return {HostName::Kind::unknown, {}};
}

}  // namespace netif_rx
