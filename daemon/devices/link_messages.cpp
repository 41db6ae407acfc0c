#include "devices/link_messages.h"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstring>

namespace netif_rx {
namespace {

// Calls visit(type, data) for each attribute of `attributes`; false when one
// runs past them.
template <typename Visit>
bool for_each_attribute(std::span<const std::uint8_t> attributes, Visit&& visit) {
  std::size_t offset = 0;
  while (offset + sizeof(rtattr) <= attributes.size()) {
    rtattr attribute;
    std::memcpy(&attribute, attributes.data() + offset, sizeof attribute);
    if (attribute.rta_len < sizeof(rtattr) || offset + attribute.rta_len > attributes.size()) {
      return false;
    }
    visit(attribute.rta_type,
          attributes.subspan(offset + RTA_LENGTH(0), attribute.rta_len - RTA_LENGTH(0)));
    offset += RTA_ALIGN(attribute.rta_len);
  }
  return true;
}

std::string attribute_string(std::span<const std::uint8_t> data) {
  const auto* text = reinterpret_cast<const char*>(data.data());
  return std::string(text, strnlen(text, data.size()));
}

std::uint32_t attribute_u32(std::span<const std::uint8_t> data) {
  std::uint32_t value = 0;
  if (data.size() >= sizeof value) std::memcpy(&value, data.data(), sizeof value);
  return value;
}

// The attributes of an ifinfomsg payload into `message`: its name, kind,
// lower device and master. Sets `malformed` when an attribute runs past the
// payload.
void read_link_attributes(std::span<const std::uint8_t> payload, LinkMessage& message,
                          bool& malformed) {
  const std::size_t start = NLMSG_ALIGN(sizeof(ifinfomsg));
  if (start > payload.size()) return;
  malformed = !for_each_attribute(
      payload.subspan(start), [&](unsigned short type, std::span<const std::uint8_t> data) {
        if (type == IFLA_IFNAME) {
          message.name = attribute_string(data);
        } else if (type == IFLA_LINK) {
          message.lower_ifindex = attribute_u32(data);
        } else if (type == IFLA_MASTER) {
          message.master_ifindex = attribute_u32(data);
        } else if ((type & NLA_TYPE_MASK) == IFLA_LINKINFO) {
          // A malformed IFLA_LINKINFO leaves the kind empty; the link is still named.
          for_each_attribute(data, [&](unsigned short sub, std::span<const std::uint8_t> value) {
            if ((sub & NLA_TYPE_MASK) == IFLA_INFO_KIND)
              message.link_kind = attribute_string(value);
          });
        }
      });
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
        read_link_attributes(payload, message, result.malformed);
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
