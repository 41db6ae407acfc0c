#include "pipeline/netns_attribution.h"

#include <gtest/gtest.h>

#include "pipeline/netns_attributor.h"

namespace netif_rx {
namespace {

constexpr std::uint32_t kHost = 4026531840;
using Keys = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

Snapshot with_namespaces(const Keys& keys) {
  Snapshot snapshot;
  std::uint32_t ifindex = 1;
  for (const auto& [inum, salt] : keys)
    snapshot.devices.push_back({{inum, ifindex++, salt}, "d", {}});
  return snapshot;
}

NodeScan named_scan(std::map<std::uint32_t, std::string> named) {
  NodeScan scan;
  scan.host_inum = kHost;
  scan.named = std::move(named);
  return scan;
}

TEST(NetnsAttribution, NamespacesOfASnapshotSortedAndDistinct) {
  EXPECT_EQ(namespaces_of(with_namespaces({{9, 1}, {kHost, 0}, {9, 1}, {9, 2}})),
            (Keys{{9, 1}, {9, 2}, {kHost, 0}}));
}

TEST(NetnsAttribution, ANewSaltForAnInodeIsANewNamespace) {
  EXPECT_FALSE(has_new_namespace({{9, 1}, {kHost, 0}}, {{9, 1}}));
  EXPECT_TRUE(has_new_namespace({{9, 1}, {kHost, 0}}, {{9, 2}, {kHost, 0}}));
  EXPECT_TRUE(has_new_namespace({}, {{kHost, 0}}));
}

TEST(NetnsAttribution, TableBoundedHostAlwaysIn) {
  const NodeScan scan = named_scan({{5, "a"}, {6, "b"}});
  const NetnsInfoTable table = build_info_table({{5, 1}, {6, 1}, {kHost, 0}}, scan, 1, {}, false);
  ASSERT_EQ(table.entries.size(), 2U);
  EXPECT_EQ(table.entries[0].owner.netns_name, "a");
  EXPECT_EQ(table.entries[1].owner.kind, OwnerKind::host);
  EXPECT_EQ(table.counts.dropped_namespaces, 1U);
  EXPECT_TRUE(table.find(5, 1));
  EXPECT_FALSE(table.find(5, 2));
}

TEST(NetnsAttribution, LabelValuesAreValidUtf8AndBounded) {
  const NodeScan scan = named_scan({{5, std::string("bad\xff") + std::string(400, 'x')}});
  const NetnsInfoTable table = build_info_table({{5, 1}}, scan, 10, {}, false);
  const std::string& name = table.entries[0].owner.netns_name;
  EXPECT_EQ(name.substr(0, 8),
            "bad\xEF\xBF\xBD"
            "ff");
  EXPECT_LE(name.size(), 256U);
}

TEST(NetnsAttribution, ReplacedBytesNeverMakeALabelLongerThan253Bytes) {
  const NodeScan scan = named_scan({{5, std::string(300, '\xff')}});
  const NetnsInfoTable table = build_info_table({{5, 1}}, scan, 10, {}, false);
  const std::string& name = table.entries[0].owner.netns_name;
  EXPECT_LE(name.size(), 253U);
  EXPECT_GE(name.size(), 250U);  // cut at a character, not before
}

// Namespace 9 had id 0x100000007 (salt 7) and died; the scan opened a file of
// inode 9 again: another namespace, which is "web".
TEST(NetnsAttribution, AnIdOfAnotherNamespaceIsNeverItsOwner) {
  NodeScan scan = named_scan({{9, "web"}});
  scan.ids.note(9, 0x100000008);
  const NetnsInfoTable table = build_info_table({{9, 7}, {9, 8}}, scan, 10, {}, true);
  EXPECT_EQ(table.find(9, 7)->owner, NetnsOwner{});  // unknown, no labels
  EXPECT_EQ(table.find(9, 8)->owner.kind, OwnerKind::named);
  EXPECT_EQ(table.find(9, 8)->owner.netns_name, "web");
}

// No id to compare (the kernel has no NS_GET_ID, the salt is hash_mix, or no
// file of the inode was opened): the inode decides, as before.
TEST(NetnsAttribution, WithoutAnIdTheInodeDecides) {
  NodeScan scan = named_scan({{9, "web"}});
  EXPECT_EQ(build_info_table({{9, 7}}, scan, 10, {}, true).find(9, 7)->owner.netns_name, "web");
  scan.ids.note(9, 8);
  EXPECT_EQ(build_info_table({{9, 7}}, scan, 10, {}, false).find(9, 7)->owner.netns_name, "web");
}

// The own namespace's salt is 0 whatever its id: it is never checked.
TEST(NetnsAttribution, TheOwnNamespaceIsNeverCheckedById) {
  NodeScan scan = named_scan({});
  scan.ids.note(kHost, 3);
  EXPECT_EQ(build_info_table({{kHost, 0}}, scan, 10, {}, true).find(kHost, 0)->owner.kind,
            OwnerKind::host);
}

TEST(NetnsIds, MatchById) {
  NetnsIds ids;
  ids.note(9, 0x500000007);
  ids.note(9, std::nullopt);  // a file without id adds nothing
  ids.note(0, 1);             // nor a file that was not a namespace
  EXPECT_EQ(match_identity(9, 7, ids, true), IdentityMatch::same);
  EXPECT_EQ(match_identity(9, 5, ids, true), IdentityMatch::other);
  EXPECT_EQ(match_identity(10, 7, ids, true), IdentityMatch::unchecked);
  EXPECT_EQ(match_identity(9, 5, ids, false), IdentityMatch::unchecked);
  EXPECT_EQ(ids.seen(0), NetnsIds::Seen::none);
}

// An inode seen with two ids in one scan was reused while the scan ran: it
// names neither namespace for sure, until the next scan.
TEST(NetnsIds, TwoIdsForOneInodeMatchNothing) {
  NetnsIds processes;
  processes.note(9, 7);
  NetnsIds bundles;
  bundles.note(9, 8);
  processes.merge(bundles);
  EXPECT_EQ(processes.seen(9), NetnsIds::Seen::conflicting);
  EXPECT_FALSE(processes.id_of(9));
  EXPECT_EQ(match_identity(9, 7, processes, true), IdentityMatch::other);
  EXPECT_EQ(match_identity(9, 8, processes, true), IdentityMatch::other);
}

// The attributor resolves a namespace when it appears, and again when its
// inode comes back with a new salt (a new namespace): never the old answer.
TEST(NetnsAttributor, ReResolvesAnInodeThatCameBackWithANewSalt) {
  SnapshotStore snapshots;
  NetnsInfoStore info;
  std::map<std::uint32_t, std::string> names{{9, "first"}};
  int scans = 0;
  AttributorOptions options;
  options.min_interval = Milliseconds(0);
  options.refresh_interval = Milliseconds(3600 * 1000);
  NetnsAttributor attributor(
      snapshots, info,
      [&] {
        ++scans;
        return named_scan(names);
      },
      options);

  snapshots.publish(std::make_shared<const Snapshot>(with_namespaces({{kHost, 0}, {9, 1}})));
  EXPECT_TRUE(attributor.check_once());
  EXPECT_EQ(info.latest()->find(9, 1)->owner.netns_name, "first");
  EXPECT_FALSE(attributor.check_once());  // nothing new, refresh not due
  EXPECT_EQ(scans, 1);

  names[9] = "second";
  snapshots.publish(std::make_shared<const Snapshot>(with_namespaces({{kHost, 0}, {9, 2}})));
  EXPECT_TRUE(attributor.check_once());
  EXPECT_FALSE(info.latest()->find(9, 1));
  EXPECT_EQ(info.latest()->find(9, 2)->owner.netns_name, "second");
  EXPECT_EQ(info.latest()->counts.scans, 2U);
}

TEST(NetnsAttributor, NewNamespacesAreRateLimited) {
  SnapshotStore snapshots;
  NetnsInfoStore info;
  AttributorOptions options;
  options.min_interval = Milliseconds(3600 * 1000);
  NetnsAttributor attributor(
      snapshots, info, [] { return named_scan({}); }, options);
  EXPECT_TRUE(attributor.check_once());  // the first check always scans
  snapshots.publish(std::make_shared<const Snapshot>(with_namespaces({{9, 1}})));
  EXPECT_FALSE(attributor.check_once());
  EXPECT_TRUE(info.latest()->entries.empty());
}

}  // namespace
}  // namespace netif_rx
