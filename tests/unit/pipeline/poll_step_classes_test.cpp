// PollStep's per-CPU device classes, the spread summary (the busiest CPU's
// packets) and max_series' folding.
#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "pipeline/poll_step.h"

namespace netif_rx {
namespace {

using std::chrono::seconds;

constexpr std::uint32_t kHost = 4026531840;
constexpr std::uint32_t kOther = 4026532281;
constexpr std::size_t kCpus = 128;
const PollStep::Clock::time_point t0{};

PollStepOptions host_options() {
  PollStepOptions options;
  options.host_netns_inum = kHost;
  return options;
}

HostLinks steady_links(LinkView view) {
  HostLinks links;
  links.before = std::make_shared<const LinkView>(std::move(view));
  links.after = links.before;
  return links;
}

LinkInfo link(std::string name, std::uint64_t instance, bool parent = false,
              std::string kind = {}) {
  LinkInfo info{std::move(name), instance};
  info.has_parent_device = parent;
  info.kind = std::move(kind);
  return info;
}

// One skb per packet on each CPU: packets[cpu].
DeviceCounters counters(std::uint32_t netns, std::uint32_t ifindex,
                        const std::vector<std::uint64_t>& packets) {
  DeviceCounters device{{netns, ifindex, 0}, {}};
  for (std::uint64_t count : packets) device.per_cpu.push_back({count, 0, count * 100});
  return device;
}

std::uint64_t packets_of(const DeviceSeries& series) {
  std::uint64_t sum = 0;
  for (const auto& cpu : series.per_cpu) sum += netif_rx_packets(&cpu);
  return sum;
}

const DeviceSeries& series_named(const PollResult& result, const std::string& name) {
  for (const auto& series : result.snapshot.devices) {
    if (series.name == name) return series;
  }
  throw std::runtime_error("no series " + name);
}

// A pinned device: every packet on one CPU, so the busiest CPU's packets are
// all its packets (share 1, one CPU carrying the traffic).
TEST(PollStepSpread, PinnedToOneCpuBusiestEqualsPackets) {
  PollStep step(host_options());
  const auto links = steady_links({{2, link("veth0", 1)}});
  std::vector<std::uint64_t> packets(kCpus, 0);
  packets[5] = 1000;  // history before the exporter: the baseline
  MapContents contents;
  contents.device_counters = {counters(kHost, 2, packets)};
  auto result = step.run(contents, links, t0);
  EXPECT_EQ(series_named(result, "veth0").busiest_packets, 0U);
  const std::uint64_t baseline = packets_of(series_named(result, "veth0"));
  for (int poll = 1; poll <= 3; ++poll) {
    packets[5] += 500;
    contents.device_counters = {counters(kHost, 2, packets)};
    result = step.run(contents, links, t0 + seconds(poll));
  }
  const DeviceSeries& veth = series_named(result, "veth0");
  EXPECT_EQ(veth.busiest_packets, 1500U);
  EXPECT_EQ(veth.busiest_packets, packets_of(veth) - baseline);
}

// Spread evenly over the 128 CPUs: the busiest CPU carries 1/128 of the
// packets, and packets / busiest = 128 CPUs carrying the traffic.
TEST(PollStepSpread, SpreadEvenlyOverAllCpusBusiestIsOne128th) {
  PollStep step(host_options());
  const auto links = steady_links({{3, link("eth0", 1, true)}});
  std::vector<std::uint64_t> packets(kCpus, 7);
  MapContents contents;
  contents.device_counters = {counters(kHost, 3, packets)};
  auto result = step.run(contents, links, t0);
  const std::uint64_t baseline = packets_of(series_named(result, "eth0"));
  for (int poll = 1; poll <= 4; ++poll) {
    for (auto& count : packets) count += 25;
    contents.device_counters = {counters(kHost, 3, packets)};
    result = step.run(contents, links, t0 + seconds(poll));
  }
  const DeviceSeries& eth = series_named(result, "eth0");
  const std::uint64_t counted = packets_of(eth) - baseline;
  EXPECT_EQ(counted, 128U * 100U);
  EXPECT_EQ(eth.busiest_packets, 100U);
  EXPECT_EQ(eth.busiest_packets * kCpus, counted);
}

// Traffic that moves between CPUs: each interval's busiest CPU counts, with
// GRO's merged packets as packets.
TEST(PollStepSpread, EachIntervalsBusiestCpuWithMergedPackets) {
  PollStep step(host_options());
  const auto links = steady_links({{2, link("veth0", 1)}});
  MapContents contents;
  DeviceCounters device = counters(kHost, 2, {0, 0, 0, 0});
  contents.device_counters = {device};
  step.run(contents, links, t0);
  device.per_cpu[0] = {10, 90, 0};  // 100 packets on CPU 0
  device.per_cpu[1] = {30, 0, 0};   // 30 on CPU 1
  contents.device_counters = {device};
  EXPECT_EQ(step.run(contents, links, t0 + seconds(1)).snapshot.devices[0].busiest_packets, 100U);
  device.per_cpu[2] = {70, 0, 0};  // 70 on CPU 2, nothing more on CPU 0 and 1
  contents.device_counters = {device};
  EXPECT_EQ(step.run(contents, links, t0 + seconds(2)).snapshot.devices[0].busiest_packets, 170U);
}

// The first reading of a device is its baseline, also for a device that
// appears later or comes back after it was forgotten.
TEST(PollStepSpread, FirstReadingIsTheBaseline) {
  PollStep step(host_options());
  const auto links = steady_links({{2, link("a", 1)}, {3, link("b", 2)}});
  MapContents contents;
  contents.device_counters = {counters(kHost, 2, {50, 0})};
  EXPECT_EQ(step.run(contents, links, t0).snapshot.devices[0].busiest_packets, 0U);
  contents.device_counters = {counters(kHost, 2, {60, 0}), counters(kHost, 3, {0, 900})};
  auto result = step.run(contents, links, t0 + seconds(1));
  EXPECT_EQ(series_named(result, "a").busiest_packets, 10U);
  EXPECT_EQ(series_named(result, "b").busiest_packets, 0U);   // new: its 900 are the baseline
  contents.device_counters = {counters(kHost, 3, {0, 950})};  // a not read: forgotten
  result = step.run(contents, links, t0 + seconds(2));
  EXPECT_EQ(series_named(result, "b").busiest_packets, 50U);
  contents.device_counters = {counters(kHost, 2, {80, 0}), counters(kHost, 3, {0, 950})};
  result = step.run(contents, links, t0 + seconds(3));
  EXPECT_EQ(series_named(result, "a").busiest_packets, 0U);  // back: a new baseline
  EXPECT_EQ(series_named(result, "b").busiest_packets, 50U);
}

// per_cpu.devices: physical keeps the own namespace's physical links per CPU
// (a parent device, a VLAN on one), plus what include names; all and none.
TEST(PollStepClasses, PhysicalDevicesIncludeAllAndNone) {
  const auto links = steady_links({{1, link("lo", 1)},
                                   {2, link("eth0", 2, true)},
                                   {3, link("veth0", 3, false, "veth")},
                                   {4, link("eth0.7", 4, false, "vlan")},
                                   {5, link("tun0", 5, false, "tun")}});
  LinkView view = *links.before;
  view[4].lower_ifindex = 2;
  const auto vlan_links = steady_links(view);
  MapContents contents;
  for (std::uint32_t ifindex = 1; ifindex <= 5; ++ifindex) {
    contents.device_counters.push_back(counters(kHost, ifindex, {1, 1}));
  }
  contents.device_counters.push_back(counters(kOther, 2, {1, 1}));
  contents.device_names = {{{kOther, 2, 0}, "eth0"}};
  const auto classes = [&](PerCpuConfig per_cpu) {
    PollStepOptions options = host_options();
    options.namespaces = NamespaceMode::all;
    options.per_cpu = std::move(per_cpu);
    PollStep step(options);
    std::string out;
    for (const auto& series : step.run(contents, vlan_links, t0).snapshot.devices) {
      out += series.name + (series.key.netns_inum == kOther ? "@other" : "") + "=" +
             (series.per_cpu_detail ? "cpu " : "sum ");
    }
    return out;
  };
  EXPECT_EQ(classes({}), "eth0=cpu eth0@other=sum eth0.7=cpu lo=sum tun0=sum veth0=sum ");
  EXPECT_EQ(classes({PerCpuDevices::physical, {"tun.*"}}),
            "eth0=cpu eth0@other=sum eth0.7=cpu lo=sum tun0=cpu veth0=sum ");
  EXPECT_EQ(classes({PerCpuDevices::all, {}}),
            "eth0=cpu eth0@other=cpu eth0.7=cpu lo=cpu tun0=cpu veth0=cpu ");
  EXPECT_EQ(classes({PerCpuDevices::none, {"eth0"}}),
            "eth0=cpu eth0@other=cpu eth0.7=sum lo=sum tun0=sum veth0=sum ");
}

// A device outside the per-CPU class is held as its sum over CPUs, one
// element, and its per-CPU vector goes back to the reader (a snapshot's
// memory grows with possible CPUs only for the per-CPU class); one of the
// class keeps a slot per possible CPU.
TEST(PollStepClasses, SummedDevicesHoldTheirSumOnly) {
  const auto links = steady_links({{1, link("lo", 1)}, {2, link("eth0", 2, true)}});
  std::vector<std::uint64_t> packets(kCpus, 0);
  packets[3] = 5;
  packets[kCpus - 1] = 7;
  MapContents contents;
  contents.device_counters = {counters(kHost, 1, packets), counters(kHost, 2, packets)};
  PollStep step(host_options());
  const PollResult result = step.run(contents, links, t0);
  const DeviceSeries& lo = series_named(result, "lo");
  ASSERT_FALSE(lo.per_cpu_detail);
  ASSERT_EQ(lo.per_cpu.size(), 1u);
  EXPECT_EQ(lo.per_cpu[0].skbs, 12u);
  EXPECT_EQ(lo.per_cpu[0].bytes, 1200u);
  const DeviceSeries& eth0 = series_named(result, "eth0");
  ASSERT_TRUE(eth0.per_cpu_detail);
  ASSERT_EQ(eth0.per_cpu.size(), kCpus);
  EXPECT_EQ(eth0.per_cpu[3].skbs, 5u);
  EXPECT_EQ(eth0.per_cpu[kCpus - 1].skbs, 7u);
  ASSERT_EQ(result.spare_per_cpu.size(), 1u);
  EXPECT_EQ(result.spare_per_cpu[0].size(), kCpus);
  // The spread summary still sees each CPU: 7 on the busiest at the next poll.
  packets[kCpus - 1] += 7;
  packets[0] += 1;
  contents.device_counters = {counters(kHost, 1, packets), counters(kHost, 2, packets)};
  const PollResult next = step.run(contents, links, t0 + seconds(1));
  EXPECT_EQ(series_named(next, "lo").busiest_packets, 7u);
  EXPECT_EQ(series_named(next, "lo").per_cpu[0].skbs, 20u);
}

// Past max_series, the devices first read last fold, whole, into one series
// per family; the sums stay exact, the choice holds from poll to poll, and a
// warning is given at most once a minute.
TEST(PollStepFold, NewestDevicesFoldPastMaxSeries) {
  PollStepOptions options = host_options();
  options.max_series = 3 + 4 + 4 * 4;  // totals, the folded series, 4 summed devices
  PollStep step(options);
  LinkView view;
  for (std::uint32_t i = 1; i <= 8; ++i) view[i] = link("veth" + std::to_string(i), i);
  const auto links = steady_links(view);
  MapContents contents;
  // veth5 .. veth8 first, then veth1 .. veth4 one poll later: those fold.
  for (std::uint32_t i = 5; i <= 8; ++i)
    contents.device_counters.push_back(counters(kHost, i, {i, 1}));
  auto result = step.run(contents, links, t0);
  EXPECT_EQ(result.snapshot.folded.devices, 0U);
  EXPECT_EQ(result.snapshot.series, 3U + 16U);
  EXPECT_TRUE(result.warnings.empty());
  for (std::uint32_t i = 1; i <= 4; ++i) {
    contents.device_counters.push_back(counters(kHost, i, {10 * i, 2}));
  }
  std::uint64_t all = 0;
  for (const auto& device : contents.device_counters) {
    for (const auto& cpu : device.per_cpu) all += netif_rx_packets(&cpu);
  }
  for (int poll = 1; poll <= 3; ++poll) {
    result = step.run(contents, links, t0 + seconds(poll));
    std::vector<std::string> names;
    std::uint64_t shown = 0;
    for (const auto& series : result.snapshot.devices) {
      names.push_back(series.name);
      shown += packets_of(series);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"veth5", "veth6", "veth7", "veth8"}));
    EXPECT_EQ(result.snapshot.folded.devices, 4U);
    for (const auto& cpu : result.snapshot.folded.per_cpu) shown += netif_rx_packets(&cpu);
    EXPECT_EQ(shown, all);
    EXPECT_EQ(result.snapshot.series, options.max_series);
    EXPECT_EQ(result.warnings.size(), poll == 1 ? 1U : 0U);
  }
  EXPECT_NE(result.warnings.size(), 1U);
  result = step.run(contents, links, t0 + seconds(61));
  ASSERT_EQ(result.warnings.size(), 1U);
  EXPECT_NE(result.warnings[0].find("4 devices are folded"), std::string::npos)
      << result.warnings[0];
  EXPECT_NE(result.warnings[0].find("max_series=23"), std::string::npos) << result.warnings[0];
}

// A per-CPU class device costs 3 series per CPU that counted and one summary.
TEST(PollStepFold, CountsTheSeriesOfEachClass) {
  DeviceSeries summed{{kHost, 1, 0}, "veth0", {{1, 0, 1}, {0, 0, 0}, {2, 0, 2}}, false, 0};
  EXPECT_EQ(device_series(summed), 4U);
  DeviceSeries per_cpu = summed;
  per_cpu.per_cpu_detail = true;
  EXPECT_EQ(device_series(per_cpu), 3U * 2U + 1U);
}

}  // namespace
}  // namespace netif_rx
