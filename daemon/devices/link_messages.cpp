#include "devices/link_messages.h"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstring>

namespace netif_rx {
namespace {

// The name attribute of an ifinfomsg payload; empty when absent. Sets
// `malformed` when an attribute runs past the payload.
std::string link_name(std::span<const std::uint8_t> payload, bool& malformed) {
  std::size_t offset = NLMSG_ALIGN(sizeof(ifinfomsg));
  while (offset + sizeof(rtattr) <= payload.size()) {
    rtattr attribute;
    std::memcpy(&attribute, payload.data() + offset, sizeof attribute);
    if (attribute.rta_len < sizeof(rtattr) || offset + attribute.rta_len > payload.size()) {
      malformed = true;
      return {};
    }
    if (attribute.rta_type == IFLA_IFNAME) {
      const auto* data = reinterpret_cast<const char*>(payload.data() + offset + RTA_LENGTH(0));
      const std::size_t length = attribute.rta_len - RTA_LENGTH(0);
      return std::string(data, strnlen(data, length));
    }
    offset += RTA_ALIGN(attribute.rta_len);
  }
  return {};
}

}  // namespace

LinkMessages parse_link_messages(std::span<const std::uint8_t> datagram) {
  LinkMessages result;
  std::size_t offset = 0;
  while (offset + sizeof(nlmsghdr) <= datagram.size()) {
    nlmsghdr header;
    std::memcpy(&header, datagram.data() + offset, sizeof header);
    if (header.nlmsg_len < sizeof(nlmsghdr) || offset + header.nlmsg_len > datagram.size()) {
      result.malformed = true;
      return result;
    }
    const auto payload = datagram.subspan(offset + NLMSG_HDRLEN, header.nlmsg_len - NLMSG_HDRLEN);
    LinkMessage message;
    message.dump_interrupted = (header.nlmsg_flags & NLM_F_DUMP_INTR) != 0;
    switch (header.nlmsg_type) {
      case RTM_NEWLINK:
      case RTM_DELLINK: {
        if (payload.size() < sizeof(ifinfomsg)) {
          result.malformed = true;
          return result;
        }
        ifinfomsg info;
        std::memcpy(&info, payload.data(), sizeof info);
        // Messages of an address family (AF_BRIDGE: a port joined or left a
        // bridge; RTM_DELLINK then means "no longer a port") are about a
        // role of the device, not the device: only AF_UNSPEC ones are.
        if (info.ifi_family != AF_UNSPEC) break;
        message.kind =
            header.nlmsg_type == RTM_NEWLINK ? LinkMessage::Kind::link : LinkMessage::Kind::removed;
        message.ifindex = static_cast<std::uint32_t>(info.ifi_index);
        message.name = link_name(payload, result.malformed);
        if (result.malformed) return result;
        break;
      }
      case NLMSG_DONE:
        message.kind = LinkMessage::Kind::done;
        break;
      case NLMSG_ERROR: {
        if (payload.size() < sizeof(nlmsgerr)) {
          result.malformed = true;
          return result;
        }
        nlmsgerr error;
        std::memcpy(&error, payload.data(), sizeof error);
        if (error.error == 0) break;                   // an acknowledgement
        if (error.error < -4095 || error.error > 0) {  // not a negative errno
          result.malformed = true;
          return result;
        }
        message.kind = LinkMessage::Kind::error;
        message.error = -error.error;
        break;
      }
      default:
        break;
    }
    result.messages.push_back(std::move(message));
    offset += NLMSG_ALIGN(header.nlmsg_len);
  }
  if (offset < datagram.size()) result.malformed = true;  // trailing bytes, shorter than a header
  return result;
}

std::vector<std::uint8_t> link_dump_request(std::uint32_t seq) {
  struct {
    nlmsghdr header;
    ifinfomsg info;
  } request{};
  request.header.nlmsg_len = NLMSG_LENGTH(sizeof(ifinfomsg));
  request.header.nlmsg_type = RTM_GETLINK;
  request.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  request.header.nlmsg_seq = seq;
  request.info.ifi_family = AF_UNSPEC;
  std::vector<std::uint8_t> bytes(sizeof request);
  std::memcpy(bytes.data(), &request, sizeof request);
  return bytes;
}

}  // namespace netif_rx
