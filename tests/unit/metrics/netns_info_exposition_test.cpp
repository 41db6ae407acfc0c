#include "metrics/netns_info_exposition.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <utility>

#include "metrics/exposition.h"

namespace netif_rx {
namespace {

constexpr std::uint32_t kHost = 4026531840;

std::string serialize(const std::vector<prometheus::MetricFamily>& families) {
  return prometheus::TextSerializer().Serialize(families);
}

std::string lines_of(const std::string& text, const std::string& prefix) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    auto end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    if (line.rfind(prefix, 0) == 0) out += line + "\n";
    at = end + 1;
  }
  return out;
}

Snapshot three_namespaces() {
  Snapshot snapshot;
  snapshot.cpus = {0};
  snapshot.devices.push_back({{4026532100, 2, 77}, "eth0", {{5, 0, 500}}});
  snapshot.devices.push_back({{kHost, 2, 0}, "eth0", {{9, 0, 900}}});
  snapshot.devices.push_back({{4026532300, 1, 88}, "lo", {{1, 0, 100}}});
  snapshot.devices.push_back({{4026532100, 1, 77}, "lo", {{1, 0, 100}}});
  snapshot.devices.push_back({{4026532400, 1, 99}, "lo", {{1, 0, 100}}});
  return snapshot;
}

NetnsInfoTable table() {
  NetnsInfoTable table;
  table.entries = {
      {kHost, 0, {OwnerKind::host, "", "", "", "", ""}},
      {4026532100, 77, {OwnerKind::pod, "shop", "web-0", "u-1", "", "cni-1"}},
      // resolved for a namespace that had this inode before: not shown
      {4026532300, 11, {OwnerKind::named, "", "", "", "", "old"}},
      {4026532400, 99, {OwnerKind::container, "", "", "", "redis \"1\"", ""}},
  };
  table.counts.scans = 3;
  table.counts.dropped_namespaces = 2;
  return table;
}

TEST(NetnsInfoExposition, OneSeriesPerResolvedNamespaceEmptyLabelsLeftOut) {
  const std::string text = serialize(render_netns_info(three_namespaces(), table()));
  EXPECT_EQ(lines_of(text, "netif_rx_netns_info"),
            "netif_rx_netns_info{kind=\"host\",netns=\"4026531840\"} 1\n"
            "netif_rx_netns_info{kind=\"pod\",namespace=\"shop\",netns=\"4026532100\","
            "netns_name=\"cni-1\",pod=\"web-0\",pod_uid=\"u-1\"} 1\n"
            "netif_rx_netns_info{container=\"redis \\\"1\\\"\",kind=\"container\","
            "netns=\"4026532400\"} 1\n");
  EXPECT_NE(text.find("# TYPE netif_rx_netns_info gauge"), std::string::npos);
  EXPECT_NE(text.find("netif_rx_exporter_netns_attribution_scans_total 3\n"), std::string::npos);
  EXPECT_NE(text.find("netif_rx_exporter_netns_attribution_dropped_total{what=\"namespaces\"} 2\n"),
            std::string::npos);
}

TEST(NetnsInfoExposition, OneInodeUnderTwoSaltsGivesOneSeries) {
  Snapshot snapshot;
  snapshot.cpus = {0};
  snapshot.devices.push_back({{4026532100, 2, 77}, "eth0", {{5, 0, 500}}});
  snapshot.devices.push_back({{4026532100, 3, 78}, "eth1", {{5, 0, 500}}});
  NetnsInfoTable both = table();
  both.entries.insert(both.entries.begin() + 2,
                      {4026532100, 78, {OwnerKind::named, "", "", "", "", "n"}});
  const std::string text = serialize(render_netns_info(snapshot, both));
  EXPECT_EQ(lines_of(text, "netif_rx_netns_info{"),
            "netif_rx_netns_info{kind=\"named\",netns=\"4026532100\",netns_name=\"n\"} 1\n");
}

// A namespace died with its devices' series still shown (until stale_after)
// and a pod's new namespace took its inode number. The salts are the low
// halves of the namespaces' cookies, which count namespace creations: the
// new one's is the later. The attribution found the dead one `unknown` (its
// inode now names the pod's namespace) and the pod for the new one.
Snapshot reused_inode(std::uint32_t dead_salt, std::uint32_t new_salt) {
  Snapshot snapshot;
  snapshot.cpus = {0};
  // Sorted by (name, netns): the dead namespace's eth1, the new one's eth0.
  snapshot.devices.push_back({{kHost, 2, 0}, "eth0", {{9, 0, 900}}});
  snapshot.devices.push_back({{4026532100, 2, new_salt}, "eth0", {{3, 0, 300}}});
  snapshot.devices.push_back({{4026532100, 3, dead_salt}, "eth1", {{40, 0, 4000}}});
  return snapshot;
}

NetnsInfoTable reused_inode_table(std::uint32_t dead_salt, std::uint32_t new_salt) {
  NetnsInfoTable table;
  table.entries = {{kHost, 0, {OwnerKind::host, "", "", "", "", ""}},
                   {4026532100, dead_salt, {}},
                   {4026532100, new_salt, {OwnerKind::pod, "shop", "web-1", "u-2", "", "cni-2"}}};
  std::sort(table.entries.begin(), table.entries.end(),
            [](const NetnsInfoEntry& a, const NetnsInfoEntry& b) {
              return std::pair{a.inum, a.salt} < std::pair{b.inum, b.salt};
            });
  return table;
}

constexpr const char* kNewPodInfo =
    "netif_rx_netns_info{kind=\"host\",netns=\"4026531840\"} 1\n"
    "netif_rx_netns_info{kind=\"pod\",namespace=\"shop\",netns=\"4026532100\","
    "netns_name=\"cni-2\",pod=\"web-1\",pod_uid=\"u-2\"} 1\n";

std::string written_info(const Snapshot& snapshot, const NetnsInfoTable& table) {
  std::string text;
  write_netns_info_text(text, snapshot, table);
  return text;
}

TEST(NetnsInfoExposition, AReusedInodeIsDescribedByItsNewestNamespace) {
  const Snapshot snapshot = reused_inode(1000, 1003);
  const NetnsInfoTable owners = reused_inode_table(1000, 1003);
  EXPECT_EQ(lines_of(serialize(render_netns_info(snapshot, owners)), "netif_rx_netns_info{"),
            kNewPodInfo);
  EXPECT_EQ(lines_of(written_info(snapshot, owners), "netif_rx_netns_info{"), kNewPodInfo);
  // The dead namespace's series stay beside the new one's, under the same netns label.
  RenderOptions options;
  options.netns_label = true;
  EXPECT_EQ(lines_of(serialize(render_snapshot(snapshot, options)), "netif_rx_packets_total{"),
            "netif_rx_packets_total{device=\"eth0\",netns=\"4026531840\"} 9\n"
            "netif_rx_packets_total{device=\"eth0\",netns=\"4026532100\"} 3\n"
            "netif_rx_packets_total{device=\"eth1\",netns=\"4026532100\"} 40\n");
}

// Cookies are 64-bit and never reused; their low halves wrap: 0xfffffffe
// then 2 is the older then the newer (four namespace creations apart).
TEST(NetnsInfoExposition, TheNewestAcrossTheSaltsWrap) {
  const Snapshot snapshot = reused_inode(0xfffffffeU, 2);
  const NetnsInfoTable owners = reused_inode_table(0xfffffffeU, 2);
  EXPECT_EQ(lines_of(serialize(render_netns_info(snapshot, owners)), "netif_rx_netns_info{"),
            kNewPodInfo);
  EXPECT_EQ(lines_of(written_info(snapshot, owners), "netif_rx_netns_info{"), kNewPodInfo);
}

// Before the attribution's first scan of the new namespace (at most 2 s),
// the inode has no info series: the dead namespace's owner never labels
// the new namespace's traffic.
TEST(NetnsInfoExposition, AReusedInodeHasNoInfoUntilItsNewestNamespaceIsResolved) {
  const Snapshot snapshot = reused_inode(1000, 1003);
  NetnsInfoTable owners;
  owners.entries = {{kHost, 0, {OwnerKind::host, "", "", "", "", ""}},
                    {4026532100, 1000, {OwnerKind::pod, "shop", "web-0", "u-1", "", "cni-1"}}};
  const std::string host_only = "netif_rx_netns_info{kind=\"host\",netns=\"4026531840\"} 1\n";
  EXPECT_EQ(lines_of(serialize(render_netns_info(snapshot, owners)), "netif_rx_netns_info{"),
            host_only);
  EXPECT_EQ(lines_of(written_info(snapshot, owners), "netif_rx_netns_info{"), host_only);
}

TEST(NetnsInfoExposition, OwnerLabelsCopiedOntoDataOnlyWhenAskedFor) {
  Snapshot snapshot = three_namespaces();
  for (DeviceSeries& device : snapshot.devices) device.per_cpu_detail = true;
  const NetnsInfoTable owners = table();
  RenderOptions options{true, true, false};
  EXPECT_EQ(lines_of(serialize(render_snapshot(snapshot, options, &owners)),
                     "netif_rx_packets_total{cpu=\"0\",device=\"eth0\""),
            "netif_rx_packets_total{cpu=\"0\",device=\"eth0\",netns=\"4026532100\"} 5\n"
            "netif_rx_packets_total{cpu=\"0\",device=\"eth0\",netns=\"4026531840\"} 9\n");
  options.owner_labels = true;
  EXPECT_EQ(lines_of(serialize(render_snapshot(snapshot, options, &owners)),
                     "netif_rx_packets_total{cpu=\"0\",device=\"eth0\""),
            "netif_rx_packets_total{cpu=\"0\",device=\"eth0\",namespace=\"shop\","
            "netns=\"4026532100\",pod=\"web-0\"} 5\n"
            "netif_rx_packets_total{cpu=\"0\",device=\"eth0\",netns=\"4026531840\"} 9\n");
}

}  // namespace
}  // namespace netif_rx
