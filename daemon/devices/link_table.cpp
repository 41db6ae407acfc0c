#include "devices/link_table.h"

#include <unordered_set>

namespace netif_rx {

void LinkTable::upsert(std::uint32_t ifindex, const std::string& name) {
  auto [it, inserted] = view_.try_emplace(ifindex);
  if (inserted) it->second.instance = next_instance_++;
  it->second.name = name;
}

std::vector<std::uint32_t> LinkTable::apply(const LinkMessage& message) {
  if (message.ifindex == 0) return {};
  if (message.kind == LinkMessage::Kind::link && !message.name.empty()) {
    upsert(message.ifindex, message.name);
  } else if (message.kind == LinkMessage::Kind::removed) {
    view_.erase(message.ifindex);
    return {message.ifindex};
  }
  return {};
}

std::vector<std::uint32_t> LinkTable::replace(const std::vector<LinkMessage>& dump) {
  std::unordered_set<std::uint32_t> present;
  for (const auto& message : dump) {
    if (message.kind != LinkMessage::Kind::link || message.ifindex == 0 || message.name.empty()) {
      continue;
    }
    present.insert(message.ifindex);
    upsert(message.ifindex, message.name);
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

HostName resolve_host_name(std::uint32_t ifindex, const LinkView& before, const LinkView& after) {
  const auto now = after.find(ifindex);
  // One view for both (nothing changed during the poll): one lookup.
  const auto then = &before == &after ? now : before.find(ifindex);
  if (now != after.end()) {
    if (then == before.end() || then->second.instance == now->second.instance) {
      return {HostName::Kind::show, now->second.name};
    }
    return {HostName::Kind::skip, {}};
  }
  if (then != before.end()) return {HostName::Kind::skip, {}};
  return {HostName::Kind::unknown, {}};
}

}  // namespace netif_rx
