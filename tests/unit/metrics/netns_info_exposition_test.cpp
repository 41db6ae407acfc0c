#include "metrics/netns_info_exposition.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

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
  EXPECT_EQ(lines_of(text, "netif_rx_netns_info{").size(),
            lines_of(text, "netif_rx_netns_info{kind=\"pod\"").size());
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
