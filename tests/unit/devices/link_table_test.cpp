#include "devices/link_table.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

LinkMessage link(std::uint32_t ifindex, std::string name) {
  LinkMessage message;
  message.kind = LinkMessage::Kind::link;
  message.ifindex = ifindex;
  message.name = std::move(name);
  return message;
}

LinkMessage removed(std::uint32_t ifindex) {
  LinkMessage message;
  message.kind = LinkMessage::Kind::removed;
  message.ifindex = ifindex;
  return message;
}

TEST(LinkTable, RenameKeepsTheInstance) {
  LinkTable table;
  EXPECT_TRUE(table.apply(link(5, "veth0")).empty());
  const auto instance = table.view().at(5).instance;
  EXPECT_TRUE(table.apply(link(5, "renamed")).empty());
  EXPECT_EQ(table.view().at(5).name, "renamed");
  EXPECT_EQ(table.view().at(5).instance, instance);
}

TEST(LinkTable, RemovalReportsTheIfindexAndAReusedIfindexIsANewInstance) {
  LinkTable table;
  table.apply(link(5, "veth0"));
  const auto first = table.view().at(5).instance;
  EXPECT_EQ(table.apply(removed(5)), std::vector<std::uint32_t>{5});
  EXPECT_FALSE(table.view().count(5));
  table.apply(link(5, "veth0"));
  EXPECT_NE(table.view().at(5).instance, first);
}

TEST(LinkTable, RemovalOfAnUnknownDeviceStillReportsIt) {
  // Its entries may exist (an event lost before): they must go too.
  LinkTable table;
  EXPECT_EQ(table.apply(removed(8)), std::vector<std::uint32_t>{8});
}

TEST(LinkTable, IgnoresMessagesWithoutIfindexOrName) {
  LinkTable table;
  table.apply(link(0, "x"));
  table.apply(link(3, ""));
  EXPECT_TRUE(table.view().empty());
}

TEST(LinkTable, ReplaceReportsWhatADumpNoLongerHas) {
  LinkTable table;
  table.apply(link(1, "lo"));
  table.apply(link(2, "eth0"));
  table.apply(link(3, "old"));
  const auto lo = table.view().at(1).instance;
  const auto gone = table.replace({link(1, "lo"), link(2, "wan0"), link(4, "new")});
  EXPECT_EQ(gone, std::vector<std::uint32_t>{3});
  EXPECT_EQ(table.view().size(), 3U);
  EXPECT_EQ(table.view().at(1).instance, lo);
  EXPECT_EQ(table.view().at(2).name, "wan0");  // renamed while events were lost
  EXPECT_EQ(table.view().at(4).name, "new");
}

TEST(ResolveHostName, SameDeviceBeforeAndAfterIsShownUnderItsNameNow) {
  const LinkView before{{2, {"eth0", 1}}};
  const LinkView after{{2, {"wan0", 1}}};
  const HostName name = resolve_host_name(2, before, after);
  EXPECT_EQ(name.kind, HostName::Kind::show);
  EXPECT_EQ(name.name, "wan0");
}

TEST(ResolveHostName, DeviceThatAppearedDuringThePollIsShown) {
  const HostName name = resolve_host_name(2, {}, LinkView{{2, {"eth0", 4}}});
  EXPECT_EQ(name.kind, HostName::Kind::show);
  EXPECT_EQ(name.name, "eth0");
}

TEST(ResolveHostName, ReplacedOrRemovedDuringThePollIsSkipped) {
  const LinkView before{{2, {"eth0", 1}}};
  EXPECT_EQ(resolve_host_name(2, before, LinkView{{2, {"eth0", 2}}}).kind, HostName::Kind::skip);
  EXPECT_EQ(resolve_host_name(2, before, {}).kind, HostName::Kind::skip);
}

TEST(ResolveHostName, InNeitherViewAsksTheKernel) {
  EXPECT_EQ(resolve_host_name(9, LinkView{{2, {"eth0", 1}}}, LinkView{{2, {"eth0", 1}}}).kind,
            HostName::Kind::unknown);
}

}  // namespace
}  // namespace netif_rx
