// Helpers of the device lifecycle tests: waiting on scrapes, namespace
// identities, reading a namespace's sysfs, the exporter's memory.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "exporter_process.h"

namespace netif_rx::test {

// Scrapes until `done` holds or `timeout_ms` pass; returns the last scrape.
Series scrape_until(ExporterProcess& exporter, const std::function<bool(const Series&)>& done,
                    int timeout_ms = 5000);

// Inode of the network namespace /run/netns/<netns> (the exporter's netns label).
std::uint32_t netns_inode(const std::string& netns);

// Links of a namespace by name, from its own view: name -> ifindex.
std::map<std::string, int> links_of(const std::string& netns);

// /sys/class/net/<link>/statistics/<counter> as the namespace sees it.
std::uint64_t link_statistic(const std::string& netns, const std::string& link,
                             const std::string& counter);

// `count` UDP datagrams to a closed port on the loopback of namespace
// /run/netns/<netns> (brought up first): each draws an ICMP error back over
// it, so its counter reaches 2 * count.
void send_loopback_datagrams(const std::string& netns, int count);

// The packets of device lo in namespace `inode` (netns label), summed.
double loopback_packets(const Series& series, std::uint32_t inode);

// VmRSS of a process, in bytes.
std::uint64_t resident_bytes(pid_t pid);

}  // namespace netif_rx::test
