// Names and help texts of the data families, shared by the two ways of
// writing them (prometheus-cpp families in exposition.cpp, text straight
// from the snapshot in snapshot_text.cpp).
#pragma once

#include <string_view>

namespace netif_rx::data_families {

struct Family {
  std::string_view name;
  std::string_view help;
};

inline constexpr Family kPackets{
    "netif_rx_packets_total",
    "Packets received by a network device (net:netif_receive_skb), by the CPU that processed "
    "them; each packet of a GRO/LRO/GSO aggregate counted."};
inline constexpr Family kSkbs{
    "netif_rx_skbs_total",
    "Socket buffers (one per net:netif_receive_skb event) received by a network device, by CPU; "
    "packets / skbs is the aggregation factor."};
inline constexpr Family kBytes{
    "netif_rx_bytes_total",
    "Network-layer bytes of the packets received by a network device, by CPU (an aggregate's "
    "merged headers restored)."};
inline constexpr Family kBusiest{
    "netif_rx_busiest_cpu_packets_total",
    "Packets a network device received on its busiest CPU of each poll interval, summed over "
    "the intervals since the exporter first read the device: rate(this) / "
    "rate(netif_rx_packets_total) is the busiest CPU's share, its inverse the CPUs carrying "
    "the traffic."};
inline constexpr Family kUntracked{
    "netif_rx_untracked_packets_total",
    "Packets counted without a device because the probe's device map was full."};
inline constexpr Family kRemoved{"netif_rx_removed_packets_total",
                                 "Packets of devices whose series are gone (deleted, namespace "
                                 "gone, forgotten or replaced), as last read."};
inline constexpr Family kCounted{
    "netif_rx_counted_packets_total",
    "Every packet the probe counted, read just before the devices: at most the sum of "
    "netif_rx_packets_total, netif_rx_untracked_packets_total and "
    "netif_rx_removed_packets_total."};
inline constexpr Family kGsoFallbacks{
    "netif_rx_gso_fallbacks_total",
    "Aggregates (skbs with gso_size set) whose packets the probe could not count exactly, by "
    "reason: gso_by_frags and unparsed_headers were counted as one packet, "
    "headers_not_restored with exact packets but without the merged headers in bytes."};
inline constexpr Family kNetnsInfo{
    "netif_rx_netns_info",
    "Who owns a network namespace, from the node's own files (kind: host, pod, container, "
    "named, ambiguous, unknown); join on netns with group_left."};

inline constexpr Family kSeries{
    "netif_rx_exporter_series",
    "Series of the data families (devices, their busiest CPU, netns info, totals) as the last "
    "poll counted them; at most max_series."};
inline constexpr Family kCpus{
    "netif_rx_exporter_cpus",
    "CPUs present now: what a share of the node's CPUs divides by. A CPU that left "
    "(unplugged) is not counted here; its series stay while they hold counts."};
inline constexpr Family kFoldedDevices{
    "netif_rx_exporter_folded_devices",
    "Devices folded into device=\"(folded devices)\" because their series would pass "
    "max_series."};

// The device label of the folded devices' series: a space, which no Linux
// device name holds.
inline constexpr std::string_view kFoldedDevice = "(folded devices)";

}  // namespace netif_rx::data_families
