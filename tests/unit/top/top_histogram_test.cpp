#include "top/top_histogram.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

TopCpuRow row(unsigned cpu, std::uint64_t packets) {
  return {cpu, {packets, packets * 130}, {packets, packets * 130}};
}

TopDeviceRows device(std::string name, std::string netns, std::vector<TopCpuRow> cpus) {
  TopDeviceRows out{{std::move(name), std::move(netns)}, {}, std::move(cpus), {}};
  for (const auto& cpu : out.cpus) {
    out.delta.packets += cpu.delta.packets;
    out.delta.bytes += cpu.delta.bytes;
  }
  return out;
}

// Sorted as compute_rate_table sorts: busiest first.
RateTable sample_table() {
  RateTable table;
  table.span_seconds = 2;
  table.cpus = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  table.devices.push_back(device(
      "eth0", "", {row(0, 0), row(1, 1000), row(2, 0), row(3, 2000), row(4, 0), row(10, 0)}));
  table.devices.push_back(device("veth1", "4026532281", {row(0, 0), row(10, 7)}));
  table.devices.push_back(device("lo", "", {row(0, 0), row(1, 0)}));
  return table;
}

std::string render(const RateTable& table, unsigned width, std::string hint = "") {
  return render_histogram(table, {width, "the probe", std::move(hint)});
}

TEST(TopHistogram, GoldenAt60Columns) {
  // Rows from the first to the last busy CPU, as lhist prints buckets; each
  // device's busiest CPU gets the full bar; idle devices are only counted.
  EXPECT_EQ(render(sample_table(), 60),
            "packets per device and CPU over 2.00s, from the probe\n"
            "\n"
            "eth0: 3000 packets (1500/s), 390.0 kB (195.0 kB/s)\n"
            "[1, 2)   1000 |@@@@@@@@@@@@@@@@@@@@@@                      |\n"
            "[2, 3)      0 |                                            |\n"
            "[3, 4)   2000 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
            "\n"
            "veth1 (netns 4026532281): 7 packets (3.5/s), 910 B (455 B/s)\n"
            "[10, 11)    7 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
            "\n"
            "1 device without packets\n");
}

TEST(TopHistogram, NoLineIsWiderThanTheTerminal) {
  const RateTable table = sample_table();
  for (unsigned width : {20U, 33U, 60U, 80U, 132U, 250U}) {
    const std::string text = render(table, width, "every 1s, Ctrl-C quits");
    std::size_t start = 0;
    std::size_t widest = 0;
    while (start < text.size()) {
      const std::size_t end = text.find('\n', start);
      widest = std::max(widest, end - start);
      start = end + 1;
    }
    EXPECT_LE(widest, width) << text;
    if (width >= 60) {
      EXPECT_EQ(widest, width) << "the bars use the whole width\n" << text;
    }
  }
}

TEST(TopHistogram, SummedOverCpusAndNothingToShow) {
  RateTable summed;
  summed.span_seconds = 0.5;
  summed.per_cpu = false;
  summed.devices.push_back(device("eth0", "", {{std::nullopt, {42, 4200}, {42, 4200}}}));
  EXPECT_EQ(render(summed, 40),
            "packets per device and CPU over 500ms, f\n"
            "\n"
            "eth0: 42 packets (84.0/s), 4.2 kB (8.4 k\n"
            "all 42 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n");

  RateTable idle = sample_table();
  for (auto& d : idle.devices) {
    for (auto& r : d.cpus) r.delta = {};
    d.delta = {};
  }
  EXPECT_EQ(render(idle, 40),
            "packets per device and CPU over 2.00s, f\n\nno packets in this span\n");
  EXPECT_EQ(render(RateTable{}, 40),
            "packets per device and CPU over 0ms, fro\n\nno devices yet\n");
}

TEST(TopHistogram, Units) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(999), "999 B");
  EXPECT_EQ(format_bytes(1500), "1.5 kB");
  EXPECT_EQ(format_bytes(2.5e9), "2.5 GB");
}

TEST(TopHistogram, FitsUtf8ByCharacters) {
  EXPECT_EQ(fit_to_width("abcdef", 3), "abc");
  EXPECT_EQ(fit_to_width("ab", 3), "ab");
  EXPECT_EQ(fit_to_width("\xC3\xA9\xC3\xA9\xC3\xA9", 2), "\xC3\xA9\xC3\xA9");
}

TEST(TopHistogram, ControlCharactersInNamesAreEscaped) {
  RateTable table;
  table.span_seconds = 1;
  table.cpus = {0};
  table.devices.push_back(device("ev\x1b[2Jil", "ns\x07", {row(0, 5)}));
  const std::string out = render(table, 80);
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
  EXPECT_EQ(out.find('\x07'), std::string::npos) << out;
  EXPECT_NE(out.find("ev\\x1b[2Jil (netns ns\\x07): 5 packets"), std::string::npos) << out;
}

}  // namespace
}  // namespace netif_rx

namespace netif_rx {
namespace {

// A device that dropped gets a line under its title; one that only dropped
// (backlog drops come before the receive) is drawn too.
TEST(TopHistogramDrops, ALineOfDropsByReasonUnderTheTitle) {
  RateTable table;
  table.span_seconds = 2;
  table.cpus = {0, 1};
  TopDeviceRows busy{{"veth1", ""}, {10, 1300}, {{0, {10, 1300}, {10, 1300}}}, {}};
  busy.drops = {{"NO_SOCKET", 40}, {"SOCKET_RCVBUFF", 2}};
  TopDeviceRows dropping{{"eth0", ""}, {0, 0}, {{0, {0, 0}, {5, 650}}}, {}};
  dropping.drops = {{"CPU_BACKLOG", 8}};
  table.devices = {busy, dropping};
  const std::string text = render_histogram(table, {80, "the probe", ""});
  EXPECT_NE(text.find("veth1: 10 packets (5.0/s), 1.3 kB (650 B/s)\n"
                      "dropped 42 (21.0/s): NO_SOCKET 40, SOCKET_RCVBUFF 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("eth0: 0 packets (0.0/s), 0 B (0 B/s)\ndropped 8 (4.0/s): CPU_BACKLOG 8\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("without packets"), std::string::npos) << text;
}

}  // namespace
}  // namespace netif_rx
