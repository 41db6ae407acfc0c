// Traffic that real hosts receive, for the aggregation tests: bulk TCP (which
// GRO merges, or which a TSO sender hands over as 64 KiB skbs) and UDP to a
// socket with UDP_GRO on, from a namespace the test made to a receiver in the
// test's own namespace. Every call is bounded in time and stops by itself.
#pragma once

#include <cstdint>
#include <string>

namespace netif_rx::test {

struct TransferResult {
  bool ok = false;
  std::uint64_t sent = 0;      // bytes (TCP) or datagrams (UDP) the sender sent
  std::uint64_t received = 0;  // bytes (TCP) or datagrams (UDP) the receiver read
  // TCP, as the sender's TCP counted them (TCP_INFO once the receiver closed):
  // segments sent and their payload bytes, retransmissions included.
  long long segments = -1;
  long long wire_bytes = -1;
  std::string error;  // why it failed
};

// Sends `bytes` over one TCP connection from `netns`, in a process pinned to
// `cpu`, to `address` (IPv4 or IPv6) in this namespace, where a receiver
// reads until the sender closes. At most 30 s.
TransferResult send_tcp_bulk(const std::string& netns, unsigned cpu, const std::string& address,
                             std::uint64_t bytes);

// Sends `count` datagrams of `payload_bytes` from `netns`, pinned to `cpu`, to
// a socket on `address` in this namespace with UDP_GRO on (so that GRO may
// merge them), which is drained until the sender is done. The sender writes
// 32 datagrams per call with UDP_SEGMENT: its device hands them over as one
// UDP GSO skb (tx-udp-segmentation on) or segments them into a burst of
// datagrams that the receiver's GRO merges again (off). At most 30 s.
TransferResult send_udp_to_gro_socket(const std::string& netns, unsigned cpu,
                                      const std::string& address, int count, int payload_bytes);

}  // namespace netif_rx::test
