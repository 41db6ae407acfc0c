#include "devices/link_messages.h"

#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <climits>
#include <cstring>
#include <string>

namespace netif_rx {
namespace {

// Builds netlink datagrams the way the kernel lays them out.
class Datagram {
 public:
  // A link message with an optional IFLA_IFNAME (written with its NUL) and
  // an unrelated attribute before it, as the kernel sends several.
  Datagram& link(std::uint16_t type, int ifindex, const std::string& name, std::uint16_t flags = 0,
                 unsigned char family = AF_UNSPEC) {
    std::vector<std::uint8_t> payload(NLMSG_ALIGN(sizeof(ifinfomsg)));
    ifinfomsg info{};
    info.ifi_family = family;
    info.ifi_index = ifindex;
    std::memcpy(payload.data(), &info, sizeof info);
    const std::uint32_t mtu = 1500;
    attribute(payload, IFLA_MTU, &mtu, sizeof mtu);
    if (!name.empty()) attribute(payload, IFLA_IFNAME, name.c_str(), name.size() + 1);
    return message(type, flags, payload);
  }
  // A link message with a kind (IFLA_LINKINFO, nested IFLA_INFO_KIND), a
  // lower device (IFLA_LINK) and a master (IFLA_MASTER), as for a VLAN or a
  // bond's port.
  Datagram& typed_link(int ifindex, const std::string& name, const std::string& kind,
                       std::uint32_t lower, std::uint32_t master) {
    std::vector<std::uint8_t> payload(NLMSG_ALIGN(sizeof(ifinfomsg)));
    ifinfomsg info{};
    info.ifi_family = AF_UNSPEC;
    info.ifi_index = ifindex;
    std::memcpy(payload.data(), &info, sizeof info);
    attribute(payload, IFLA_IFNAME, name.c_str(), name.size() + 1);
    if (lower != 0) attribute(payload, IFLA_LINK, &lower, sizeof lower);
    if (master != 0) attribute(payload, IFLA_MASTER, &master, sizeof master);
    if (!kind.empty()) {
      std::vector<std::uint8_t> nested;
      attribute(nested, IFLA_INFO_KIND, kind.c_str(), kind.size() + 1);
      attribute(payload, IFLA_LINKINFO | NLA_F_NESTED, nested.data(), nested.size());
    }
    return message(RTM_NEWLINK, 0, payload);
  }
  Datagram& done() { return message(NLMSG_DONE, NLM_F_MULTI, std::vector<std::uint8_t>(4)); }
  Datagram& error(int negative_errno) {
    nlmsgerr err{};
    err.error = negative_errno;
    std::vector<std::uint8_t> payload(sizeof err);
    std::memcpy(payload.data(), &err, sizeof err);
    return message(NLMSG_ERROR, 0, payload);
  }
  Datagram& message(std::uint16_t type, std::uint16_t flags,
                    const std::vector<std::uint8_t>& payload) {
    nlmsghdr header{};
    header.nlmsg_len = static_cast<std::uint32_t>(NLMSG_LENGTH(payload.size()));
    header.nlmsg_type = type;
    header.nlmsg_flags = flags;
    const std::size_t start = bytes_.size();
    bytes_.resize(start + NLMSG_ALIGN(header.nlmsg_len));
    std::memcpy(bytes_.data() + start, &header, sizeof header);
    std::memcpy(bytes_.data() + start + NLMSG_HDRLEN, payload.data(), payload.size());
    return *this;
  }
  std::vector<std::uint8_t>& bytes() { return bytes_; }

 private:
  static void attribute(std::vector<std::uint8_t>& payload, std::uint16_t type, const void* data,
                        std::size_t size) {
    rtattr header{};
    header.rta_len = static_cast<std::uint16_t>(RTA_LENGTH(size));
    header.rta_type = type;
    const std::size_t start = payload.size();
    payload.resize(start + RTA_ALIGN(header.rta_len));
    std::memcpy(payload.data() + start, &header, sizeof header);
    std::memcpy(payload.data() + start + RTA_LENGTH(0), data, size);
  }
  std::vector<std::uint8_t> bytes_;
};

TEST(LinkMessages, NewAndDeletedLinksWithTheirNames) {
  Datagram datagram;
  datagram.link(RTM_NEWLINK, 2, "eth0").link(RTM_DELLINK, 7, "veth1a2b");
  const LinkMessages parsed = parse_link_messages(datagram.bytes());
  ASSERT_FALSE(parsed.malformed);
  ASSERT_EQ(parsed.messages.size(), 2U);
  EXPECT_EQ(parsed.messages[0].kind, LinkMessage::Kind::link);
  EXPECT_EQ(parsed.messages[0].ifindex, 2U);
  EXPECT_EQ(parsed.messages[0].name, "eth0");
  EXPECT_EQ(parsed.messages[1].kind, LinkMessage::Kind::removed);
  EXPECT_EQ(parsed.messages[1].ifindex, 7U);
  EXPECT_EQ(parsed.messages[1].name, "veth1a2b");
}

// A port leaving a bridge: the bridge sends RTM_DELLINK with family
// AF_BRIDGE about a device that stays. Only AF_UNSPEC messages are about the
// device itself.
TEST(LinkMessages, KindLowerDeviceAndMaster) {
  Datagram datagram;
  datagram.typed_link(9, "eth0.100", "vlan", 2, 0).typed_link(3, "eth1", "", 0, 8);
  datagram.link(RTM_NEWLINK, 2, "eth0");
  const LinkMessages parsed = parse_link_messages(datagram.bytes());
  ASSERT_FALSE(parsed.malformed);
  ASSERT_EQ(parsed.messages.size(), 3U);
  EXPECT_EQ(parsed.messages[0].name, "eth0.100");
  EXPECT_EQ(parsed.messages[0].link_kind, "vlan");
  EXPECT_EQ(parsed.messages[0].lower_ifindex, 2U);
  EXPECT_EQ(parsed.messages[0].master_ifindex, 0U);
  EXPECT_EQ(parsed.messages[1].link_kind, "");
  EXPECT_EQ(parsed.messages[1].master_ifindex, 8U);
  EXPECT_EQ(parsed.messages[2].link_kind, "");
  EXPECT_EQ(parsed.messages[2].lower_ifindex, 0U);
}

TEST(LinkMessages, MessagesOfAnotherAddressFamilyAreNotAboutTheDevice) {
  Datagram datagram;
  datagram.link(RTM_DELLINK, 7, "v0", 0, AF_BRIDGE).link(RTM_NEWLINK, 7, "v0", 0, AF_BRIDGE);
  const auto parsed = parse_link_messages(datagram.bytes());
  ASSERT_FALSE(parsed.malformed);
  ASSERT_EQ(parsed.messages.size(), 2U);
  EXPECT_EQ(parsed.messages[0].kind, LinkMessage::Kind::other);
  EXPECT_EQ(parsed.messages[1].kind, LinkMessage::Kind::other);
}

TEST(LinkMessages, NamesAreBytesAsTheKernelAllowsThem) {
  const std::string name = "a\"b\\c\xC3\xA9\xFF";  // quote, backslash, UTF-8, invalid byte
  Datagram datagram;
  datagram.link(RTM_NEWLINK, 9, name);
  const LinkMessages parsed = parse_link_messages(datagram.bytes());
  ASSERT_EQ(parsed.messages.size(), 1U);
  EXPECT_EQ(parsed.messages[0].name, name);
}

TEST(LinkMessages, FifteenByteNameWithoutRoomForMore) {
  Datagram datagram;
  datagram.link(RTM_NEWLINK, 3, "abcdefghijklmno");
  EXPECT_EQ(parse_link_messages(datagram.bytes()).messages.at(0).name, "abcdefghijklmno");
}

TEST(LinkMessages, LinkWithoutNameHasAnEmptyName) {
  Datagram datagram;
  datagram.link(RTM_NEWLINK, 4, "");
  const LinkMessages parsed = parse_link_messages(datagram.bytes());
  ASSERT_FALSE(parsed.malformed);
  EXPECT_EQ(parsed.messages.at(0).name, "");
}

TEST(LinkMessages, AnErrorThatIsNoErrnoIsMalformed) {
  // Found by fuzzing: INT_MIN cannot be negated into a positive errno.
  for (const int value : {INT_MIN, -4096, 1}) {
    Datagram datagram;
    datagram.error(value);
    EXPECT_TRUE(parse_link_messages(datagram.bytes()).malformed) << value;
  }
}

TEST(LinkMessages, DumpEndErrorsAndAcknowledgements) {
  Datagram datagram;
  datagram.link(RTM_NEWLINK, 1, "lo", NLM_F_MULTI | NLM_F_DUMP_INTR).error(0).error(-EPERM).done();
  const LinkMessages parsed = parse_link_messages(datagram.bytes());
  ASSERT_FALSE(parsed.malformed);
  ASSERT_EQ(parsed.messages.size(), 4U);
  EXPECT_TRUE(parsed.messages[0].dump_interrupted);
  EXPECT_EQ(parsed.messages[1].kind, LinkMessage::Kind::other);  // ack
  EXPECT_EQ(parsed.messages[2].kind, LinkMessage::Kind::error);
  EXPECT_EQ(parsed.messages[2].error, EPERM);
  EXPECT_EQ(parsed.messages[3].kind, LinkMessage::Kind::done);
}

TEST(LinkMessages, OtherMessageTypesAreIgnored) {
  Datagram datagram;
  datagram.message(RTM_NEWADDR, 0, std::vector<std::uint8_t>(16)).link(RTM_NEWLINK, 5, "x");
  const LinkMessages parsed = parse_link_messages(datagram.bytes());
  ASSERT_EQ(parsed.messages.size(), 2U);
  EXPECT_EQ(parsed.messages[0].kind, LinkMessage::Kind::other);
  EXPECT_EQ(parsed.messages[1].name, "x");
}

TEST(LinkMessages, TruncatedMessageIsMalformed) {
  Datagram datagram;
  datagram.link(RTM_NEWLINK, 2, "eth0");
  auto bytes = datagram.bytes();
  bytes.resize(bytes.size() - 8);
  EXPECT_TRUE(parse_link_messages(bytes).malformed);
}

TEST(LinkMessages, AttributeRunningPastTheMessageIsMalformed) {
  Datagram datagram;
  datagram.link(RTM_NEWLINK, 2, "eth0");
  auto& bytes = datagram.bytes();
  // The last attribute (IFLA_IFNAME) claims more bytes than the message has.
  const std::size_t attribute = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifinfomsg)) + RTA_SPACE(4);
  const std::uint16_t too_long = 200;
  std::memcpy(bytes.data() + attribute, &too_long, sizeof too_long);
  EXPECT_TRUE(parse_link_messages(bytes).malformed);
}

TEST(LinkMessages, ShortIfinfomsgIsMalformed) {
  Datagram datagram;
  datagram.message(RTM_NEWLINK, 0, std::vector<std::uint8_t>(4));
  EXPECT_TRUE(parse_link_messages(datagram.bytes()).malformed);
}

TEST(LinkMessages, TrailingBytesAreMalformed) {
  Datagram datagram;
  datagram.link(RTM_NEWLINK, 2, "eth0");
  auto bytes = datagram.bytes();
  bytes.insert(bytes.end(), 6, 0);
  EXPECT_TRUE(parse_link_messages(bytes).malformed);
  EXPECT_TRUE(parse_link_messages({}).messages.empty());
}

TEST(LinkMessages, DumpRequestAsksForEveryLink) {
  const auto request = link_dump_request(42);
  ASSERT_EQ(request.size(), NLMSG_LENGTH(sizeof(ifinfomsg)));
  nlmsghdr header;
  std::memcpy(&header, request.data(), sizeof header);
  EXPECT_EQ(header.nlmsg_len, request.size());
  EXPECT_EQ(header.nlmsg_type, RTM_GETLINK);
  EXPECT_EQ(header.nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
  EXPECT_EQ(header.nlmsg_seq, 42U);
}

}  // namespace
}  // namespace netif_rx
