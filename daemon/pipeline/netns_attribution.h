// The owner table for a snapshot's namespaces: pure, so that tests give it a
// scan of a fake tree.
#pragma once

#include <memory>

#include "owners/netns_info_table.h"
#include "owners/owner_resolution.h"
#include "pipeline/snapshot.h"

namespace netif_rx {

// The (inode, salt) pairs of the snapshot's devices, sorted and distinct.
std::vector<std::pair<std::uint32_t, std::uint32_t>> namespaces_of(const Snapshot& snapshot);

// True when `now` (sorted) holds a namespace that `resolved` (sorted, those of
// the last table) did not: one seen for the first time, or an inode that came
// back with a new salt (a new namespace).
bool has_new_namespace(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& resolved,
                       const std::vector<std::pair<std::uint32_t, std::uint32_t>>& now);

// A table with an entry for each of `namespaces` (at most `max_namespaces`;
// the others are counted in `counts.dropped_namespaces`), resolved from `scan`.
// `salt_is_netns_id`: the probe's salts are the low halves of the namespaces'
// ids (net_cookie); then a namespace whose inode the scan saw with another id
// is "unknown", never given the owner of the namespace that has its inode now.
NetnsInfoTable build_info_table(
    const std::vector<std::pair<std::uint32_t, std::uint32_t>>& namespaces, const NodeScan& scan,
    std::size_t max_namespaces, AttributionCounts counts, bool salt_is_netns_id);

}  // namespace netif_rx
