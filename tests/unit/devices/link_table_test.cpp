#include "devices/link_table.h"

#include <gtest/gtest.h>

#include <algorithm>

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

// An interrupted dump adds and renames, and takes nothing away: a live link
// it missed stays, with its instance.
TEST(LinkTable, MergeAddsAndUpdatesButRemovesNothing) {
  LinkTable table;
  table.replace({link(1, "lo"), link(5, "veth0")});
  const auto instance = table.view().at(5).instance;
  table.merge({link(1, "lo"), link(7, "veth1"), link(5, "renamed")});
  ASSERT_EQ(table.view().size(), 3u);
  EXPECT_EQ(table.view().at(5).name, "renamed");
  EXPECT_EQ(table.view().at(5).instance, instance);
  EXPECT_EQ(table.view().at(7).name, "veth1");
  table.merge({link(7, "veth1")});
  EXPECT_EQ(table.view().size(), 3u);
  auto gone = table.replace({link(1, "lo")});
  std::sort(gone.begin(), gone.end());
  EXPECT_EQ(gone, (std::vector<std::uint32_t>{5, 7}));
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

// The sysfs check is asked once per new ifindex, not at a rename.
TEST(LinkTable, AsksForAParentDeviceOncePerNewLink) {
  std::vector<std::string> asked;
  LinkTable table([&asked](const std::string& name) {
    asked.push_back(name);
    return name.rfind("eth", 0) == 0;
  });
  table.apply(link(2, "eth0"));
  table.apply(link(2, "wan0"));
  table.apply(link(5, "veth0"));
  EXPECT_EQ(asked, (std::vector<std::string>{"eth0", "veth0"}));
  EXPECT_TRUE(table.view().at(2).has_parent_device);
  EXPECT_FALSE(table.view().at(5).has_parent_device);
}

// Physical: a parent device in sysfs, a bond of one, a VLAN on one (or on
// such a bond); not a veth, a bridge of physical ports, lo, a VLAN on a veth.
TEST(PhysicalLink, ParentDeviceBondsAndVlans) {
  const auto info = [](std::string name, bool parent, std::string kind, std::uint32_t lower,
                       std::uint32_t master) {
    LinkInfo link{std::move(name), 1};
    link.has_parent_device = parent;
    link.kind = std::move(kind);
    link.lower_ifindex = lower;
    link.master_ifindex = master;
    return link;
  };
  const LinkView view{
      {1, info("lo", false, "", 0, 0)},
      {2, info("eth0", true, "", 0, 0)},
      {3, info("eth1", true, "", 0, 10)},
      {4, info("eth0.100", false, "vlan", 2, 0)},
      {5, info("veth0", false, "veth", 0, 11)},
      {6, info("veth0.7", false, "vlan", 5, 0)},
      {10, info("bond0", false, "bond", 0, 0)},
      {11, info("br0", false, "bridge", 0, 0)},
      {12, info("bond0.5", false, "vlan", 10, 0)},
      {13, info("bond1", false, "bond", 0, 0)},
  };
  for (std::uint32_t ifindex : {2, 3, 4, 10, 12}) {
    EXPECT_TRUE(physical_link(view, ifindex)) << view.at(ifindex).name;
  }
  for (std::uint32_t ifindex : {1, 5, 6, 11, 13, 99}) {
    EXPECT_FALSE(physical_link(view, ifindex)) << ifindex;
  }
  EXPECT_TRUE(resolve_host_name(4, view, view).physical);
  EXPECT_FALSE(resolve_host_name(5, view, view).physical);
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

TEST(ResolveHostName, ReplacedOrRemovedDuringThePollIsGone) {
  const LinkView before{{2, {"eth0", 1}}};
  EXPECT_EQ(resolve_host_name(2, before, LinkView{{2, {"eth0", 2}}}).kind, HostName::Kind::gone);
  EXPECT_EQ(resolve_host_name(2, before, {}).kind, HostName::Kind::gone);
}

TEST(ResolveHostName, InNeitherViewAsksTheKernel) {
  EXPECT_EQ(resolve_host_name(9, LinkView{{2, {"eth0", 1}}}, LinkView{{2, {"eth0", 1}}}).kind,
            HostName::Kind::unknown);
}

}  // namespace
}  // namespace netif_rx
