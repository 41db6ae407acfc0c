// The text written straight from a snapshot against prometheus-cpp's
// serialization of the same snapshot's families, on randomized snapshots
// with hostile device and owner names: byte for byte the same.
#include "metrics/snapshot_exposition.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <random>
#include <string>

#include "devices/label_value.h"

namespace netif_rx {
namespace {

using Random = std::mt19937_64;

// Sums over CPUs stay below 2^53: prometheus-cpp converts a counter to a
// double first, exact only up to there; the text writer writes every integer
// exactly (LargeCountersAreExactIntegers).
std::uint64_t counter(Random& random) {
  switch (random() % 4) {
    case 0:
      return 0;
    case 1:
      return random() % 1000;
    case 2:
      return 1ULL << 50;
    default:
      return random() % 1000000000000000ULL;
  }
}

// Bytes a device or owner name may hold in the worst case: quotes,
// backslashes, newlines, control bytes, bytes that are not UTF-8.
std::string hostile_name(Random& random) {
  static constexpr char kAlphabet[] = "ab0_-.\"\\\n\t\x01\x7f\xc3\xa9\xff\xe2\x82";
  std::string name;
  const std::size_t length = random() % 16;
  for (std::size_t i = 0; i < length; ++i)
    name.push_back(kAlphabet[random() % (sizeof kAlphabet - 1)]);
  // Half as the poller hands them over (valid UTF-8), half raw.
  return random() % 2 ? to_label_value(name) : name;
}

std::vector<netif_rx_counters> per_cpu_counters(Random& random, std::size_t slots) {
  std::vector<netif_rx_counters> counters(slots);
  for (auto& c : counters) c = {counter(random), counter(random) % 1000, counter(random)};
  return counters;
}

constexpr std::uint32_t kNetns[] = {4026531840U, 4026532100U, 4026532200U, 4026532300U};

Snapshot random_snapshot(Random& random) {
  Snapshot snapshot;
  const std::size_t possible = 1 + random() % 6;
  for (unsigned cpu = 0; cpu < possible; ++cpu) {
    if (random() % 4 != 0) snapshot.cpus.push_back(cpu);  // some CPUs absent
  }
  const std::size_t devices = random() % 12;
  for (std::size_t i = 0; i < devices; ++i) {
    const std::uint32_t netns = kNetns[random() % 4];
    // A vector shorter than the CPU list (reads as zeros) now and then.
    const std::size_t slots = random() % 8 == 0 ? possible / 2 : possible;
    DeviceSeries series{
        {netns, static_cast<std::uint32_t>(i + 1), static_cast<std::uint32_t>(random() % 2)},
        hostile_name(random),
        per_cpu_counters(random, slots),
        random() % 2 == 0,
        counter(random)};
    // CPUs that never counted a packet of the device (no series for them).
    for (auto& cpu : series.per_cpu) {
      if (random() % 3 == 0) cpu = {};
    }
    snapshot.devices.push_back(std::move(series));
  }
  if (random() % 3 == 0) {
    snapshot.folded = {1 + random() % 50, per_cpu_counters(random, possible), counter(random)};
  }
  snapshot.series = random() % 100000;
  snapshot.untracked_per_cpu = per_cpu_counters(random, possible);
  snapshot.removed_per_cpu = per_cpu_counters(random, random() % 2 ? possible : 0);
  snapshot.counted_per_cpu = per_cpu_counters(random, possible);
  for (const char* reason : {"gso_by_frags", "unparsed_headers"}) {
    if (random() % 3 == 0) continue;
    GsoFallbacks fallbacks{reason, {}};
    for (std::size_t cpu = 0; cpu < possible; ++cpu)
      fallbacks.skbs_per_cpu.push_back(counter(random));
    snapshot.gso_fallbacks.push_back(std::move(fallbacks));
  }
  if (random() % 2) {
    snapshot.bpf.valid = true;
    snapshot.bpf.programs.push_back(
        {"netif_rx_btf", 7, "0123456789abcdef", AttachMode::tp_btf, counter(random), 3, 0});
    snapshot.bpf.maps = {{"device_counters", devices, 4096}};
  }
  return snapshot;
}

NetnsInfoTable random_owners(Random& random) {
  NetnsInfoTable table;
  for (std::uint32_t inum : kNetns) {
    for (std::uint32_t salt : {0U, 1U}) {
      if (random() % 3 == 0) continue;
      NetnsOwner owner;
      owner.kind = static_cast<OwnerKind>(random() % 6);
      for (std::string* label : {&owner.namespace_name, &owner.pod, &owner.pod_uid,
                                 &owner.container, &owner.netns_name}) {
        if (random() % 2) *label = hostile_name(random);
      }
      table.entries.push_back({inum, salt, std::move(owner)});
    }
  }
  table.counts.scans = counter(random);
  table.counts.last_scan_seconds = 0.015625;
  table.counts.dropped_pods = counter(random) % 100;
  return table;
}

std::string through_prometheus_cpp(const Snapshot& snapshot, const RenderOptions& options,
                                   const NetnsInfoTable* owners) {
  return prometheus::TextSerializer().Serialize(snapshot_families(snapshot, options, owners));
}

std::string written(const Snapshot& snapshot, const RenderOptions& options,
                    const NetnsInfoTable* owners) {
  std::string text = "# text before\n";  // appended to, never replaced
  write_snapshot_exposition(text, snapshot, options, owners);
  return text.substr(14);
}

TEST(SnapshotExposition, WritesWhatPrometheusCppSerializesOnRandomSnapshots) {
  Random random(20251125);
  for (int round = 0; round < 200; ++round) {
    const Snapshot snapshot = random_snapshot(random);
    const NetnsInfoTable owners = random_owners(random);
    for (unsigned bits = 0; bits < 8; ++bits) {
      const RenderOptions options{(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0};
      for (const NetnsInfoTable* table : {static_cast<const NetnsInfoTable*>(nullptr), &owners}) {
        ASSERT_EQ(written(snapshot, options, table),
                  through_prometheus_cpp(snapshot, options, table))
            << "round " << round << ", totals_per_cpu " << options.totals_per_cpu
            << ", netns_label " << options.netns_label << ", owner_labels " << options.owner_labels
            << ", owners " << (table != nullptr);
      }
    }
  }
}

TEST(SnapshotExposition, EmptySnapshotAsPrometheusCpp) {
  const Snapshot snapshot;
  EXPECT_EQ(written(snapshot, {}, nullptr), through_prometheus_cpp(snapshot, {}, nullptr));
}

// Beyond 10^16 the text writer keeps every digit; prometheus-cpp rounds to
// 16 significant digits. Both read back as the same double within 1e-15.
TEST(SnapshotExposition, LargeCountersAreExactIntegers) {
  Snapshot snapshot;
  snapshot.cpus = {0};
  snapshot.devices.push_back(
      {{kNetns[0], 2, 0}, "eth0", {{3, 0, 18446744073709551615ULL}}, true, 0});
  const std::string text = written(snapshot, {}, nullptr);
  EXPECT_NE(text.find("netif_rx_bytes_total{cpu=\"0\",device=\"eth0\"} 18446744073709551615\n"),
            std::string::npos)
      << text;
  EXPECT_NE(through_prometheus_cpp(snapshot, {}, nullptr)
                .find("netif_rx_bytes_total{cpu=\"0\",device=\"eth0\"} 1.844674407370955e+19\n"),
            std::string::npos);
  // Past 2^53, below 10^16: still exact here, rounded to a double there.
  snapshot.devices.front().per_cpu.front().bytes = 9007199254740993ULL;
  EXPECT_NE(written(snapshot, {}, nullptr)
                .find("netif_rx_bytes_total{cpu=\"0\",device=\"eth0\"} 9007199254740993\n"),
            std::string::npos);
}

// CPU 1 left (present: 0) with its counts in the maps: its series stay and
// the sums keep them, as written for /metrics.
TEST(SnapshotExposition, ACpuThatLeftStaysInTheText) {
  Snapshot snapshot;
  snapshot.cpus = {0};
  snapshot.devices.push_back({{kNetns[0], 2, 0}, "eth0", {{20, 0, 2560}, {30, 5, 3840}}, true, 0});
  snapshot.devices.push_back({{kNetns[1], 3, 7}, "veth0", {{7, 0, 700}, {9, 0, 900}}, false, 12});
  snapshot.untracked_per_cpu = {{1, 0, 100}, {2, 0, 200}};
  snapshot.counted_per_cpu = {{28, 0, 0}, {41, 5, 0}};
  const std::string summed = written(snapshot, {}, nullptr);
  for (const char* line :
       {"netif_rx_packets_total{cpu=\"0\",device=\"eth0\"} 20\n",
        "netif_rx_packets_total{cpu=\"1\",device=\"eth0\"} 35\n",
        "netif_rx_bytes_total{cpu=\"1\",device=\"eth0\"} 3840\n",
        "netif_rx_packets_total{device=\"veth0\"} 16\n",
        "netif_rx_bytes_total{device=\"veth0\"} 1600\n", "netif_rx_untracked_packets_total 3\n",
        "netif_rx_counted_packets_total 74\n", "netif_rx_exporter_cpus 1\n"}) {
    EXPECT_NE(summed.find(line), std::string::npos) << line << summed;
  }
  const std::string by_cpu = written(snapshot, {true, false, false}, nullptr);
  for (const char* line : {"netif_rx_untracked_packets_total{cpu=\"0\"} 1\n",
                           "netif_rx_untracked_packets_total{cpu=\"1\"} 2\n",
                           "netif_rx_counted_packets_total{cpu=\"1\"} 46\n"}) {
    EXPECT_NE(by_cpu.find(line), std::string::npos) << line << by_cpu;
  }
}

}  // namespace
}  // namespace netif_rx
