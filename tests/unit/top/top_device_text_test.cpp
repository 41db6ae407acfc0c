// What `top --device` draws under the device's bars.
#include "top/top_device_text.h"

#include <gtest/gtest.h>

#include "top/top_histogram.h"

namespace netif_rx {
namespace {

RateTable selected_table() {
  RateTable table;
  table.span_seconds = 2;
  table.cpus = {0, 1, 2};
  table.device = "eth0";
  TopDeviceRows eth0{{"eth0", ""},
                     {3000, 390000},
                     {{0, {1000, 130000}, {}}, {1, {0, 0}, {}}, {2, {2000, 260000}, {}}},
                     {{"NO_SOCKET", 16}, {"SOCKET_RCVBUFF", 1}}};
  table.devices.push_back(eth0);
  table.queue_matrices[{"eth0", ""}] = {{0, 1}, {0, 2}, {{1000, 0}, {1, 1999}}};
  return table;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

// The matrix and drops of selected_table()'s device, as the view writes them.
constexpr const char* kMatrixAndDrops =
    "RX queue -> CPU, packets/s (rows: queues, columns: CPUs):\n"
    "queue  cpu 0  cpu 2\n"
    "    0    500      .\n"
    "    1    0.5   1000\n"
    "drops by reason, per second:\n"
    "  NO_SOCKET       8.0\n"
    "  SOCKET_RCVBUFF  0.5\n";

TEST(TopDeviceText, MatrixAndDropsPerSecond) {
  const RateTable table = selected_table();
  EXPECT_EQ(joined(device_detail_lines(table, table.devices[0], 80)), kMatrixAndDrops);
}

TEST(TopDeviceText, ColumnsThatDoNotFitAreCounted) {
  const RateTable table = selected_table();
  const std::vector<std::string> lines = device_detail_lines(table, table.devices[0], 16);
  EXPECT_EQ(lines[1], "queue  cpu 0");
  EXPECT_EQ(lines[2], "    0    500");
  EXPECT_EQ(lines[4], "1 CPU more (to c");  // cut at 16 columns like every line
  for (const std::string& line : lines) EXPECT_LE(line.size(), 16U) << line;
}

TEST(TopDeviceText, ADeviceWithoutQueuesAndDrops) {
  RateTable table = selected_table();
  table.queue_matrices[{"eth0", ""}] = {};
  table.devices[0].drops.clear();
  const std::vector<std::string> lines = device_detail_lines(table, table.devices[0], 200);
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0],
            "RX queues: none: its driver records none, or it is outside per_cpu.devices (see "
            "check)");
  EXPECT_EQ(lines[1], "drops: none in this span");
}

TEST(TopDeviceText, WhatTheSourceCannotShowIsSaid) {
  RateTable table = selected_table();
  table.queue_matrices.clear();
  table.queues_absent = "top's own probe reads no RX queues; read an exporter with --from";
  table.drops_absent = "top's own probe counts no drops; read an exporter with --from";
  EXPECT_EQ(joined(device_detail_lines(table, table.devices[0], 200)),
            "RX queues: not shown: top's own probe reads no RX queues; read an exporter with "
            "--from\n"
            "drops: not shown: top's own probe counts no drops; read an exporter with --from\n");
}

TEST(TopDeviceText, TheHistogramDrawsTheSelectedDevice) {
  const std::string text = render_histogram(selected_table(), {60, "http://h/metrics", ""});
  EXPECT_EQ(text,
            "device eth0 by CPU, RX queue and drop reason over 2.00s, fro\n"
            "\n"
            "eth0: 3000 packets (1500/s), 390.0 kB (195.0 kB/s)\n"
            "[0, 1) 1000 |@@@@@@@@@@@@@@@@@@@@@@@                       |\n"
            "[1, 2)    0 |                                              |\n"
            "[2, 3) 2000 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n" +
                std::string(kMatrixAndDrops));
}

TEST(TopDeviceText, AnIdleOrMissingDevice) {
  RateTable table = selected_table();
  for (TopCpuRow& row : table.devices[0].cpus) row.delta = {};
  table.devices[0].delta = {};
  const std::string idle = render_histogram(table, {80, "x", ""});
  EXPECT_NE(idle.find("eth0: 0 packets"), std::string::npos) << idle;
  EXPECT_NE(idle.find("queue  cpu 0"), std::string::npos) << idle;
  table.devices.clear();
  EXPECT_EQ(render_histogram(table, {80, "x", ""}),
            "device eth0 by CPU, RX queue and drop reason over 2.00s, from x\n"
            "\n"
            "no device eth0 in this reading\n");
}

}  // namespace
}  // namespace netif_rx
