// Looks into the maps of a running exporter from outside, as `bpftool map
// dump id N` would: the map ids from /proc/<pid>/fdinfo, the keys by id.
#pragma once

#include <sys/types.h>

#include <set>
#include <string>
#include <vector>

#include "netif_rx.h"

namespace netif_rx::test {

// The keys of the map called `map_name` that process `pid` holds; empty when
// it holds none (the test then fails on the count it expects).
std::vector<netif_rx_device_key> map_keys(pid_t pid, const std::string& map_name);

// The devices process `pid` holds counts for: the keys of `device_counters`
// and, as keys of namespace `host_netns_inum`, the slots of the own-namespace
// array `host_counters` that counted packets.
std::vector<netif_rx_device_key> counted_devices(pid_t pid, std::uint32_t host_netns_inum);

// Writes `name` for `key` into the `device_names` map of process `pid`, as
// the probe would; false when the map isn't found or the write fails.
bool put_device_name(pid_t pid, const netif_rx_device_key& key, const std::string& name);

// Writes names of no device (namespace `netns_inum`, ifindexes from 100000)
// into the `device_names` map of process `pid` until it is full or `most`
// are written; returns how many were.
int fill_device_names(pid_t pid, std::uint32_t netns_inum, int most);
// The entry of the `netns_table` map of process `pid` that holds namespace
// `netns_inum` (netns_inum 0: none holds it).
netif_rx_netns_block netns_table_entry(pid_t pid, std::uint32_t netns_inum);

// The blocks that entries of the `netns_table` map of process `pid` hold now.
std::set<std::uint32_t> netns_table_blocks(pid_t pid);

// The skbs slot `slot` of the `netns_slots` map of process `pid` counted,
// summed over CPUs.
std::uint64_t netns_slot_skbs(pid_t pid, std::uint32_t slot);

// Keys of `keys` in namespace `netns_inum`.
std::vector<netif_rx_device_key> keys_in(const std::vector<netif_rx_device_key>& keys,
                                         std::uint32_t netns_inum);

}  // namespace netif_rx::test
