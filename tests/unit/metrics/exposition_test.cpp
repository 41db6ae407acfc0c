#include "metrics/exposition.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace netif_rx {
namespace {

constexpr std::uint32_t kHostNetns = 4026531840;
constexpr std::uint32_t kOtherNetns = 4026532281;

std::string serialize(const std::vector<prometheus::MetricFamily>& families) {
  return prometheus::TextSerializer().Serialize(families);
}

// Compares `actual` with tests/unit/data/<name> byte for byte. With
// NETIF_RX_UPDATE_GOLDEN=1 in the environment, rewrites the file instead
// (review the diff before committing it).
void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(NETIF_RX_TEST_DATA_DIR) + "/" + name;
  if (const char* update = std::getenv("NETIF_RX_UPDATE_GOLDEN"); update && *update == '1') {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << path
                  << "; run with NETIF_RX_UPDATE_GOLDEN=1 to create it";
  std::ostringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "golden file " << path;
}

// A device of the per-CPU class (exported by CPU, from each CPU's first packet).
DeviceSeries device(std::uint32_t netns, std::uint32_t ifindex, std::string name,
                    std::vector<netif_rx_counters> per_cpu) {
  return DeviceSeries{{netns, ifindex, 0}, std::move(name), std::move(per_cpu), true, 0};
}

// Every device of `snapshot` out of the per-CPU class: summed over CPUs.
Snapshot summed(Snapshot snapshot) {
  for (DeviceSeries& series : snapshot.devices) series.per_cpu_detail = false;
  return snapshot;
}

RenderOptions totals_per_cpu() {
  RenderOptions options;
  options.totals_per_cpu = true;
  return options;
}

// Two devices, two CPUs, some untracked packets. The second device's name
// has a quote and a backslash, which the serializer must escape. Counters
// are {skbs, merged packets, bytes}: eth0's 10 skbs on CPU 0 carried 45
// packets.
Snapshot small_snapshot() {
  Snapshot snapshot;
  snapshot.cpus = {0, 1};
  snapshot.devices.push_back(device(kHostNetns, 2, "eth0", {{10, 35, 65160}, {3, 0, 180}}));
  snapshot.devices.push_back(
      device(kHostNetns, 7, "we\"ird\\dev", {{0, 0, 0}, {123456789012345, 0, 9007199254740992}}));
  snapshot.untracked_per_cpu = {{4, 2, 240}, {0, 0, 0}};
  snapshot.removed_per_cpu = {{5, 0, 300}, {1, 0, 60}};
  // Read before the devices: at most what they, untracked and removed hold.
  snapshot.counted_per_cpu = {{19, 37, 0}, {123456789012349, 0, 0}};
  snapshot.gso_fallbacks = {{"gso_by_frags", {0, 1}}, {"unparsed_headers", {2, 0}}};
  return snapshot;
}

TEST(Exposition, PerCpu) {
  Snapshot snapshot = small_snapshot();
  snapshot.devices[0].busiest_packets = 40;
  expect_golden("per_cpu.prom", serialize(render_snapshot(snapshot, totals_per_cpu())));
}

TEST(Exposition, SummedOverCpus) {
  expect_golden("summed.prom", serialize(render_snapshot(summed(small_snapshot()), {})));
}

TEST(Exposition, NetnsLabel) {
  Snapshot snapshot;
  snapshot.cpus = {0, 1};
  snapshot.devices.push_back(device(kHostNetns, 2, "eth0", {{1, 0, 100}, {2, 0, 200}}));
  snapshot.devices.push_back(device(kOtherNetns, 2, "eth0", {{3, 0, 300}, {4, 0, 400}}));
  snapshot.devices.push_back(device(kHostNetns, 1, "lo", {{5, 0, 500}, {6, 0, 600}}));
  snapshot.untracked_per_cpu = {{0, 0, 0}, {7, 0, 700}};
  RenderOptions options = totals_per_cpu();
  options.netns_label = true;
  expect_golden("netns.prom", serialize(render_snapshot(snapshot, options)));

  options.totals_per_cpu = false;
  expect_golden("netns_summed.prom", serialize(render_snapshot(summed(snapshot), options)));
}

// Per-CPU maps have a slot for every possible CPU, and a CPU that left (hot
// unplugged) keeps its slots' counts. CPUs 1 and 3 are possible, not present,
// and hold counts: they stay exported and summed.
Snapshot sparse_cpus_snapshot() {
  Snapshot snapshot;
  snapshot.cpus = {0, 2};
  snapshot.devices.push_back(
      device(kHostNetns, 2, "eth0", {{1, 0, 10}, {100, 0, 1000}, {2, 0, 20}, {100, 0, 1000}}));
  snapshot.untracked_per_cpu = {{1, 0, 1}, {100, 0, 100}, {2, 0, 2}, {100, 0, 100}};
  return snapshot;
}

TEST(Exposition, ACpuThatLeftKeepsItsSeriesWhileTheyHoldCounts) {
  expect_golden("sparse_cpus.prom",
                serialize(render_snapshot(sparse_cpus_snapshot(), totals_per_cpu())));
}

TEST(Exposition, SumsEveryCpuThatHoldsCounts) {
  const auto families = render_snapshot(summed(sparse_cpus_snapshot()), {});
  ASSERT_EQ(families.size(), 11U);
  ASSERT_EQ(families[0].metric.size(), 1U);
  EXPECT_EQ(families[0].metric[0].counter.value, 203);
  ASSERT_EQ(families[1].metric.size(), 1U);
  EXPECT_EQ(families[1].metric[0].counter.value, 203);
  ASSERT_EQ(families[2].metric.size(), 1U);
  EXPECT_EQ(families[2].metric[0].counter.value, 2030);
  ASSERT_EQ(families[4].metric.size(), 1U);  // untracked
  EXPECT_EQ(families[4].metric[0].counter.value, 203);
  ASSERT_EQ(families[8].metric.size(), 1U);  // netif_rx_exporter_cpus: the present ones
  EXPECT_EQ(families[8].metric[0].gauge.value, 2);
}

// The value of every series of `families`, keyed by its name and labels.
std::map<std::string, double> series_values(const std::vector<prometheus::MetricFamily>& families) {
  std::map<std::string, double> values;
  for (const auto& family : families) {
    if (family.type != prometheus::MetricType::Counter) continue;
    for (const auto& metric : family.metric) {
      std::string key = family.name;
      for (const auto& label : metric.label) key += " " + label.name + "=" + label.value;
      values[key] = metric.counter.value;
    }
  }
  return values;
}

// CPU 1 leaves (present 0-1, then 0) with the counts of both CPUs still in
// the maps: every counter keeps its value, summed or by CPU, the totals by
// CPU included; a possible CPU that never counted has no series.
TEST(Exposition, NoCounterGoesDownWhenACpuLeaves) {
  Snapshot before;
  before.cpus = {0, 1};
  before.devices.push_back(device(kHostNetns, 2, "eth0", {{20, 0, 2560}, {30, 5, 3840}, {}}));
  before.devices.push_back(device(kOtherNetns, 3, "veth0", {{7, 0, 700}, {9, 0, 900}, {}}));
  before.devices[1].per_cpu_detail = false;
  before.devices[1].busiest_packets = 12;
  before.untracked_per_cpu = {{1, 0, 100}, {2, 0, 200}, {}};
  before.removed_per_cpu = {{3, 0, 300}, {4, 0, 400}, {}};
  before.counted_per_cpu = {{31, 0, 0}, {45, 5, 0}, {}};
  before.gso_fallbacks = {{"unparsed_headers", {0, 6, 0}}};
  Snapshot after = before;
  after.cpus = {0};

  for (const RenderOptions& options : {RenderOptions{}, totals_per_cpu()}) {
    const auto was = series_values(render_snapshot(before, options));
    const auto now = series_values(render_snapshot(after, options));
    EXPECT_EQ(now, was) << "totals_per_cpu " << options.totals_per_cpu;
  }
  const auto summed_totals = series_values(render_snapshot(after, {}));
  EXPECT_EQ(summed_totals.at("netif_rx_packets_total cpu=1 device=eth0"), 35);
  EXPECT_EQ(summed_totals.at("netif_rx_packets_total device=veth0"), 16);
  EXPECT_EQ(summed_totals.at("netif_rx_bytes_total device=veth0"), 1600);
  EXPECT_EQ(summed_totals.at("netif_rx_untracked_packets_total"), 3);
  EXPECT_EQ(summed_totals.at("netif_rx_removed_packets_total"), 7);
  EXPECT_EQ(summed_totals.at("netif_rx_counted_packets_total"), 81);
  EXPECT_EQ(summed_totals.at("netif_rx_gso_fallbacks_total reason=unparsed_headers"), 6);
  EXPECT_EQ(summed_totals.at("netif_rx_busiest_cpu_packets_total device=veth0"), 12);
  EXPECT_EQ(summed_totals.count("netif_rx_packets_total cpu=2 device=eth0"), 0U);
  const auto by_cpu = series_values(render_snapshot(after, totals_per_cpu()));
  EXPECT_EQ(by_cpu.at("netif_rx_counted_packets_total cpu=1"), 50);
  EXPECT_EQ(by_cpu.at("netif_rx_gso_fallbacks_total cpu=1 reason=unparsed_headers"), 6);
  EXPECT_EQ(by_cpu.count("netif_rx_counted_packets_total cpu=2"), 0U);
  // eth0 on 2 CPUs, veth0, busiest of both, 3 totals and 1 fallback reason on 2 CPUs.
  EXPECT_EQ(by_cpu.size(), 2U * 3 + 3 + 2 + 3 * 2 + 2);
}

// The totals by CPU: a present CPU always has its line (zero until it
// counts), a CPU that left only while a total holds counts on it.
TEST(Exposition, TotalsByCpuOfPresentCpusAndOfCpusThatHoldCounts) {
  Snapshot snapshot;
  snapshot.cpus = {0, 1};
  snapshot.untracked_per_cpu = {{}, {}, {}, {}};
  snapshot.removed_per_cpu = {{}, {}, {}, {2, 0, 20}};
  snapshot.counted_per_cpu = {{}, {}, {}, {2, 0, 0}};
  const auto values = series_values(render_snapshot(snapshot, totals_per_cpu()));
  const std::map<std::string, double> expected{
      {"netif_rx_untracked_packets_total cpu=0", 0}, {"netif_rx_untracked_packets_total cpu=1", 0},
      {"netif_rx_untracked_packets_total cpu=3", 0}, {"netif_rx_removed_packets_total cpu=0", 0},
      {"netif_rx_removed_packets_total cpu=1", 0},   {"netif_rx_removed_packets_total cpu=3", 2},
      {"netif_rx_counted_packets_total cpu=0", 0},   {"netif_rx_counted_packets_total cpu=1", 0},
      {"netif_rx_counted_packets_total cpu=3", 2}};
  EXPECT_EQ(values, expected);
}

// A device whose per-CPU vector is shorter than the CPU list (it cannot be
// in practice) reads as zeros rather than out of bounds: no series for
// those CPUs, as for CPUs that never counted a packet of the device.
TEST(Exposition, MissingSlotsAreZero) {
  Snapshot snapshot;
  snapshot.cpus = {0, 1, 2};
  snapshot.devices.push_back(device(kHostNetns, 2, "eth0", {{1, 0, 10}}));
  const auto families = render_snapshot(snapshot, totals_per_cpu());
  ASSERT_EQ(families.size(), 11U);
  ASSERT_EQ(families[0].metric.size(), 1U);
  EXPECT_EQ(families[0].metric[0].counter.value, 1);
  ASSERT_EQ(families[4].metric.size(), 3U);  // untracked, by CPU
  EXPECT_EQ(families[4].metric[2].counter.value, 0);
}

// A per-CPU class device has a CPU's series from its first packet there and
// none for the CPUs it never used; another device one summed series.
TEST(Exposition, PerCpuSeriesOnlyForCpusThatCounted) {
  Snapshot snapshot;
  snapshot.cpus = {0, 1, 2, 3};
  snapshot.devices.push_back(
      device(kHostNetns, 2, "eth0", {{0, 0, 0}, {5, 0, 500}, {}, {1, 2, 9}}));
  snapshot.devices.push_back(
      device(kHostNetns, 9, "veth1", {{1, 0, 10}, {2, 0, 20}, {}, {4, 0, 40}}));
  snapshot.devices[1].per_cpu_detail = false;
  snapshot.devices[1].busiest_packets = 4;
  const auto families = render_snapshot(snapshot, {});
  ASSERT_EQ(families[0].metric.size(), 3U);
  EXPECT_EQ(families[0].metric[0].label[0].value, "1");
  EXPECT_EQ(families[0].metric[1].label[0].value, "3");
  EXPECT_EQ(families[0].metric[1].counter.value, 3);
  EXPECT_EQ(families[0].metric[2].label[0].name, "device");  // veth1: no cpu label
  EXPECT_EQ(families[0].metric[2].counter.value, 7);
  ASSERT_EQ(families[3].metric.size(), 2U);  // busiest: one per device
  EXPECT_EQ(families[3].metric[1].counter.value, 4);
  ASSERT_EQ(families[4].metric.size(), 1U);  // untracked: summed
}

// Folded devices: one series per family, device="(folded devices)", no cpu.
TEST(Exposition, FoldedDevices) {
  Snapshot snapshot;
  snapshot.cpus = {0, 1};
  snapshot.devices.push_back(device(kHostNetns, 2, "eth0", {{1, 0, 10}, {2, 0, 20}}));
  snapshot.folded = {3, {{10, 1, 100}, {20, 0, 200}}, 17};
  snapshot.series = 42;
  const auto families = render_snapshot(snapshot, {});
  const std::string text = serialize(families);
  EXPECT_NE(text.find("netif_rx_packets_total{device=\"(folded devices)\"} 31\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("netif_rx_busiest_cpu_packets_total{device=\"(folded devices)\"} 17\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("netif_rx_exporter_folded_devices 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("netif_rx_exporter_series 42\n"), std::string::npos) << text;
}

// No device yet: the families are still described, and untracked is zero.
TEST(Exposition, NoDevices) {
  Snapshot snapshot;
  snapshot.cpus = {0, 1};
  expect_golden("no_devices.prom", serialize(render_snapshot(snapshot, {})));
}

// An aggregate counts every packet it carried; skbs count the events.
TEST(Exposition, PacketsAreSkbsAndTheirMergedPackets) {
  const auto families = render_snapshot(small_snapshot(), {});
  ASSERT_GE(families.size(), 2U);
  ASSERT_EQ(families[0].metric.size(), 3U);            // we"ird\dev counted nothing on CPU 0
  EXPECT_EQ(families[0].metric[0].counter.value, 45);  // eth0, CPU 0
  EXPECT_EQ(families[1].metric[0].counter.value, 10);
  EXPECT_EQ(families[0].metric[1].counter.value, 3);  // eth0, CPU 1: nothing merged
  EXPECT_EQ(families[1].metric[1].counter.value, 3);
}

TEST(Exposition, FamiliesAreCounters) {
  const auto families = render_snapshot(small_snapshot(), {});
  ASSERT_EQ(families.size(), 11U);
  EXPECT_EQ(families[0].name, "netif_rx_packets_total");
  EXPECT_EQ(families[1].name, "netif_rx_skbs_total");
  EXPECT_EQ(families[2].name, "netif_rx_bytes_total");
  EXPECT_EQ(families[3].name, "netif_rx_busiest_cpu_packets_total");
  EXPECT_EQ(families[4].name, "netif_rx_untracked_packets_total");
  EXPECT_EQ(families[5].name, "netif_rx_removed_packets_total");
  EXPECT_EQ(families[6].name, "netif_rx_counted_packets_total");
  EXPECT_EQ(families[7].name, "netif_rx_gso_fallbacks_total");
  EXPECT_EQ(families[8].name, "netif_rx_exporter_cpus");
  EXPECT_EQ(families[9].name, "netif_rx_exporter_series");
  EXPECT_EQ(families[10].name, "netif_rx_exporter_folded_devices");
  for (std::size_t i = 0; i < 8; ++i) {
    const auto& family = families[i];
    EXPECT_EQ(family.type, prometheus::MetricType::Counter) << family.name;
    EXPECT_FALSE(family.help.empty()) << family.name;
  }
}

}  // namespace
}  // namespace netif_rx
