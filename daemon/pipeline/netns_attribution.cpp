#include "pipeline/netns_attribution.h"

#include <algorithm>

#include "devices/label_value.h"
#include "owners/netns_ids.h"

namespace netif_rx {
namespace {

// Values from files are outside input: valid UTF-8, and at most a DNS
// subdomain's 253 bytes (a cut character becomes U+FFFD and its bytes in hex, cut again
// at a character when that made it longer).
constexpr std::size_t kMaxLabelBytes = 253;

std::string label(const std::string& raw) {
  std::string value = to_label_value(std::string_view(raw).substr(0, kMaxLabelBytes));
  if (value.size() <= kMaxLabelBytes) return value;
  // Replaced bytes made it longer: cut again, at a character's start.
  std::size_t end = kMaxLabelBytes;
  while (end > 0 && (static_cast<unsigned char>(value[end]) & 0xC0) == 0x80) --end;
  value.resize(end);
  return value;
}

NetnsOwner as_labels(NetnsOwner owner) {
  for (std::string* value :
       {&owner.namespace_name, &owner.pod, &owner.pod_uid, &owner.container, &owner.netns_name}) {
    *value = label(*value);
  }
  return owner;
}

// The own namespace (salt 0) outlives the exporter: its inode is never reused.
NetnsOwner owner_of(std::uint32_t inum, std::uint32_t salt, const NodeScan& scan,
                    bool salt_is_netns_id) {
  if (inum != scan.host_inum &&
      match_identity(inum, salt, scan.ids, salt_is_netns_id) == IdentityMatch::other) {
    return NetnsOwner{};
  }
  return resolve_owner(inum, scan);
}

}  // namespace

std::vector<std::pair<std::uint32_t, std::uint32_t>> namespaces_of(const Snapshot& snapshot) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  out.reserve(snapshot.devices.size());
  for (const DeviceSeries& device : snapshot.devices) {
    out.emplace_back(device.key.netns_inum, device.key.netns_salt);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool has_new_namespace(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& resolved,
                       const std::vector<std::pair<std::uint32_t, std::uint32_t>>& now) {
  return !std::includes(resolved.begin(), resolved.end(), now.begin(), now.end());
}

NetnsInfoTable build_info_table(
    const std::vector<std::pair<std::uint32_t, std::uint32_t>>& namespaces, const NodeScan& scan,
    std::size_t max_namespaces, AttributionCounts counts, bool salt_is_netns_id) {
  NetnsInfoTable table;
  table.counts = counts;
  table.entries.reserve(std::min(namespaces.size(), max_namespaces));
  for (const auto& [inum, salt] : namespaces) {
    // The host's namespace first of all: it is never left out.
    if (table.entries.size() >= max_namespaces && inum != scan.host_inum) {
      ++table.counts.dropped_namespaces;
      continue;
    }
    table.entries.push_back({inum, salt, as_labels(owner_of(inum, salt, scan, salt_is_netns_id))});
  }
  return table;
}

}  // namespace netif_rx
