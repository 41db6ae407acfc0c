// Two network namespaces of the benchmark's own, joined by a veth pair
// (198.51.100.0/30, TEST-NET-2), and small UDP datagrams sent across it.
// Everything is deleted when the object goes, also on a failure or a
// signal.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/unique_fd.h"

namespace netif_rx::bench {

class BenchNetwork {
 public:
  BenchNetwork();  // throws std::runtime_error
  ~BenchNetwork();
  BenchNetwork(const BenchNetwork&) = delete;
  BenchNetwork& operator=(const BenchNetwork&) = delete;

  // Inode of the receiving namespace: the probe counts that one.
  std::uint32_t receiver_netns_inum() const { return receiver_inum_; }

  // Sends `packets` datagrams (payload 16 bytes) and returns the wall-clock
  // nanoseconds per packet. The sender is pinned to one CPU, where the
  // receive side (veth -> backlog -> netif_receive_skb) runs in the same
  // system call. The receiver is drained afterwards, untimed.
  double burst(int packets);

  // A drop storm: sends `packets` datagrams (payload 16 bytes) to a port
  // nobody listens on at the receiver, `per_second` of them a second (batches
  // of 64 at fixed instants; a late batch is sent at once, not skipped), so
  // that the receiver drops every one (no socket: UDP's NoPorts). Returns the
  // wall-clock nanoseconds per packet spent in the sends: the whole receive
  // path up to the drop runs within them (see burst()); the pauses between
  // batches are not counted.
  double flood_closed_port(int packets, int per_second);

  // Turns GRO on at the receiving end and TSO/GSO off at the sender, so that
  // bulk TCP arrives as MTU frames that the receiver's GRO merges, as a
  // physical NIC's traffic does. The UDP bursts then take the NAPI path:
  // call it after every burst() measurement.
  void merge_received_tcp();
  // Sends `bytes` over one TCP connection across the pair (a thread of its
  // own receives them); throws when the transfer fails.
  void bulk_tcp(std::uint64_t bytes);
  // Frames both ends received (their rx_packets: the data one way, the
  // acknowledgements the other): with TSO off, every frame is one packet.
  std::uint64_t frames_received() const;

 private:
  void drain();

  std::string sender_ns_;
  std::string receiver_ns_;
  std::string sender_link_;
  std::string receiver_link_;
  std::uint32_t receiver_inum_ = 0;
  UniqueFd sender_;
  UniqueFd receiver_;
};

// Node-like traffic: a sender namespace joined to `namespaces` receiving
// namespaces by `devices` veth pairs each (/31s of 198.51.100.0/24, static
// neighbours), and small UDP datagrams sent to every receiving device in
// turn. Everything is deleted when the object goes, also on a signal.
class SpreadNetwork {
 public:
  SpreadNetwork(int namespaces, int devices);  // throws std::runtime_error
  ~SpreadNetwork();
  SpreadNetwork(const SpreadNetwork&) = delete;
  SpreadNetwork& operator=(const SpreadNetwork&) = delete;

  // Inodes of the receiving namespaces.
  const std::vector<std::uint32_t>& receiver_netns_inums() const { return inums_; }
  // Sends `packets` datagrams round-robin over the receiving devices; the
  // receivers are drained afterwards.
  void burst(int packets);

 private:
  std::vector<std::string> namespaces_;  // the sender's first
  std::vector<std::uint32_t> inums_;
  std::vector<std::string> destinations_;
  UniqueFd sender_;
  std::vector<UniqueFd> receivers_;
};

// Deletes the namespaces of a BenchNetwork that a signal interrupted.
void install_cleanup_on_signals();

}  // namespace netif_rx::bench
