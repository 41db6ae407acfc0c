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
  const NetnsInfoTable table = build_info_table({{5, 1}, {6, 1}, {kHost, 0}}, scan, 1, {});
  ASSERT_EQ(table.entries.size(), 2U);
  EXPECT_EQ(table.entries[0].owner.netns_name, "a");
  EXPECT_EQ(table.entries[1].owner.kind, OwnerKind::host);
  EXPECT_EQ(table.counts.dropped_namespaces, 1U);
  EXPECT_TRUE(table.find(5, 1));
  EXPECT_FALSE(table.find(5, 2));
}

TEST(NetnsAttribution, LabelValuesAreValidUtf8AndBounded) {
  const NodeScan scan = named_scan({{5, std::string("bad\xff") + std::string(400, 'x')}});
  const NetnsInfoTable table = build_info_table({{5, 1}}, scan, 10, {});
  const std::string& name = table.entries[0].owner.netns_name;
  EXPECT_EQ(name.substr(0, 6), "bad\xEF\xBF\xBD");
  EXPECT_LE(name.size(), 256U);
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
