// Pure parsing of rtnetlink link messages (RTM_NEWLINK, RTM_DELLINK) and the
// request for a full dump (RTM_GETLINK). No sockets: unit-tested on crafted
// buffers.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace netif_rx {

struct LinkMessage {
  enum class Kind {
    link,     // RTM_NEWLINK: the device exists (new, renamed or changed)
    removed,  // RTM_DELLINK: the device is gone (deleted or moved out)
              // (both AF_UNSPEC only: other families are `other`)
    done,     // NLMSG_DONE: end of a dump
    error,    // NLMSG_ERROR with a non-zero error
    other,    // anything else (ignored)
  };
  Kind kind = Kind::other;
  std::uint32_t ifindex = 0;
  std::string name;  // IFLA_IFNAME, link and removed only
  // link only: IFLA_LINKINFO's IFLA_INFO_KIND ("veth", "bond", "vlan", ...;
  // empty for a physical device's driver and for lo), IFLA_LINK (the lower
  // device of a VLAN or a veth peer's index; 0: none), IFLA_MASTER (a bond's
  // or bridge's port: the master's ifindex; 0: none).
  std::string link_kind{};
  std::uint32_t lower_ifindex = 0;
  std::uint32_t master_ifindex = 0;
  int error = 0;                  // positive errno, error only
  bool dump_interrupted = false;  // NLM_F_DUMP_INTR: the dump must be redone
};

struct LinkMessages {
  std::vector<LinkMessage> messages;
  bool malformed = false;  // a header or attribute ran past the buffer
};

// Parses every netlink message in one datagram.
LinkMessages parse_link_messages(std::span<const std::uint8_t> datagram);

// The bytes of an RTM_GETLINK dump request with sequence number `seq`.
std::vector<std::uint8_t> link_dump_request(std::uint32_t seq);

}  // namespace netif_rx
