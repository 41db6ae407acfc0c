// The RX queue -> CPU matrix of `top --device`, from parsed exposition text.
#include "top/top_queue_matrix.h"

#include <gtest/gtest.h>

#include <string>

#include "error_text.h"
#include "top/top_device_selection.h"

namespace netif_rx {
namespace {

// A page as the exporter serves it, with the queue and drop families; the
// counters are scaled by `n` so that two pages make a span.
std::string page(std::uint64_t n) {
  const auto v = [n](std::uint64_t base) { return std::to_string(base * n); };
  return "netif_rx_packets_total{cpu=\"0\",device=\"eth0\"} " + v(100) +
         "\n"
         "netif_rx_packets_total{cpu=\"1\",device=\"eth0\"} " +
         v(200) +
         "\n"
         "netif_rx_packets_total{cpu=\"0\",device=\"veth1\"} " +
         v(5) +
         "\n"
         "netif_rx_untracked_packets_total{cpu=\"0\"} 0\n"
         "netif_rx_untracked_packets_total{cpu=\"1\"} 0\n"
         "netif_rx_drops_total{device=\"eth0\",reason=\"NO_SOCKET\"} " +
         v(4) +
         "\n"
         "netif_rx_untracked_drops_total 0\n"
         "# TYPE netif_rx_queue_packets_total counter\n"
         "netif_rx_queue_packets_total{device=\"eth0\",queue=\"0\",cpu=\"0\"} " +
         v(90) +
         "\n"
         "netif_rx_queue_packets_total{device=\"eth0\",queue=\"0\",cpu=\"1\"} " +
         v(10) +
         "\n"
         "netif_rx_queue_packets_total{device=\"eth0\",queue=\"3\",cpu=\"1\"} " +
         v(190) +
         "\n"
         "netif_rx_queue_untracked_packets_total 0\n";
}

TEST(TopQueueMatrix, ParsesTheQueueFamily) {
  const TopReading reading = reading_from_exposition(page(1));
  EXPECT_TRUE(reading.queues_absent.empty());
  EXPECT_TRUE(reading.drops_absent.empty());
  const TopQueueCounters& eth0 = reading.queues.at({"eth0", ""});
  EXPECT_EQ(eth0.size(), 3U);
  EXPECT_EQ(eth0.at({0, 1}), 10U);
  EXPECT_EQ(eth0.at({3, 1}), 190U);
  EXPECT_EQ(reading.queues.count({"veth1", ""}), 0U);
}

TEST(TopQueueMatrix, CellsAreTheIncreaseByQueueAndCpu) {
  const TopReading before = reading_from_exposition(page(1));
  const TopReading after = reading_from_exposition(page(3));
  const QueueMatrix matrix = compute_queue_matrix(before, after, {"eth0", ""});
  EXPECT_EQ(matrix.queues, (std::vector<unsigned>{0, 3}));
  EXPECT_EQ(matrix.cpus, (std::vector<unsigned>{0, 1}));
  // Queue 3 never ran on CPU 0: no series, a zero cell.
  EXPECT_EQ(matrix.packets, (std::vector<std::vector<std::uint64_t>>{{180, 20}, {0, 380}}));
  EXPECT_EQ(matrix.total(), 580U);
}

TEST(TopQueueMatrix, APairNewOrResetCountsFromZero) {
  TopReading before;
  before.queues[{"eth0", ""}] = {{{0, 0}, 500}};
  TopReading after;
  after.queues[{"eth0", ""}] = {{{0, 0}, 20}, {{1, 2}, 7}};
  const QueueMatrix matrix = compute_queue_matrix(before, after, {"eth0", ""});
  EXPECT_EQ(matrix.packets, (std::vector<std::vector<std::uint64_t>>{{20, 0}, {0, 7}}));
}

TEST(TopQueueMatrix, ADeviceWithoutQueuesHasAnEmptyMatrix) {
  const TopReading reading = reading_from_exposition(page(1));
  const QueueMatrix matrix = compute_queue_matrix(reading, reading, {"veth1", ""});
  EXPECT_TRUE(matrix.empty());
  EXPECT_EQ(matrix.total(), 0U);
}

TEST(TopQueueMatrix, NamespacesAreKeptApart) {
  const TopReading reading = reading_from_exposition(
      "netif_rx_untracked_packets_total 0\n"
      "netif_rx_queue_packets_total{device=\"eth0\",netns=\"1\",queue=\"0\",cpu=\"0\"} 1\n"
      "netif_rx_queue_packets_total{device=\"eth0\",netns=\"2\",queue=\"5\",cpu=\"0\"} 2\n"
      "netif_rx_queue_untracked_packets_total 0\n");
  EXPECT_EQ(reading.queues.at({"eth0", "1"}).at({0, 0}), 1U);
  EXPECT_EQ(reading.queues.at({"eth0", "2"}).at({5, 0}), 2U);
}

TEST(TopQueueMatrix, AbsentFamiliesAreSaidNotZeroed) {
  // An exporter without the drop counter and from before queues were counted.
  const TopReading reading = reading_from_exposition(
      "netif_rx_packets_total{cpu=\"0\",device=\"eth0\"} 1\n"
      "netif_rx_untracked_packets_total{cpu=\"0\"} 0\n");
  EXPECT_TRUE(reading.queues.empty());
  EXPECT_NE(reading.queues_absent.find("netif_rx_queue_packets_total"), std::string::npos);
  EXPECT_NE(reading.drops_absent.find("netif_rx_drops_total"), std::string::npos);
  // Served but empty (no driver recorded a queue yet): present, not absent.
  const TopReading served = reading_from_exposition(
      "netif_rx_untracked_packets_total 0\n"
      "netif_rx_queue_untracked_packets_total 0\n"
      "netif_rx_untracked_drops_total 0\n");
  EXPECT_TRUE(served.queues_absent.empty());
  EXPECT_TRUE(served.drops_absent.empty());
}

TEST(TopQueueMatrix, RejectsMalformedQueueSeries) {
  const auto error_of = [](std::string_view text) {
    return test::error_text<ExpositionParseError>([&] { reading_from_exposition(text); });
  };
  EXPECT_EQ(error_of("netif_rx_queue_packets_total{device=\"eth0\",queue=\"x\",cpu=\"0\"} 1\n"),
            "netif_rx_queue_packets_total{cpu=\"0\",device=\"eth0\",queue=\"x\"}: queue 'x' is "
            "not a queue number");
  EXPECT_EQ(error_of("netif_rx_queue_packets_total{device=\"eth0\",cpu=\"0\"} 1\n"),
            "netif_rx_queue_packets_total{cpu=\"0\",device=\"eth0\"}: the queue or cpu label is "
            "missing");
}

TEST(TopQueueMatrix, AHostilePageCannotMakeItUnbounded) {
  // 2,048 queues on 1,024 CPUs each: 2M cells asked for, 1M kept.
  TopReading after;
  TopQueueCounters& eth0 = after.queues[{"eth0", ""}];
  for (unsigned i = 0; i < 2048; ++i) eth0[{i, i % 1024}] = 1;
  const QueueMatrix matrix = compute_queue_matrix({}, after, {"eth0", ""});
  EXPECT_EQ(matrix.cpus.size(), 1024U);
  EXPECT_EQ(matrix.queues.size(), 1024U);
  EXPECT_EQ(matrix.left_out_queues, 1024U);
  EXPECT_EQ(matrix.queues.back(), 1023U);
  EXPECT_EQ(matrix.total(), 1024U);
}

TEST(TopDeviceSelection, KeepsTheNamedDeviceWithItsMatrix) {
  const TopReading before = reading_from_exposition(page(1));
  const TopReading after = reading_from_exposition(page(2));
  RateTable table = compute_rate_table(before, after);
  select_device(table, before, after, "eth0");
  EXPECT_EQ(table.device, "eth0");
  ASSERT_EQ(table.devices.size(), 1U);
  EXPECT_EQ(table.devices[0].id.name, "eth0");
  EXPECT_EQ(table.queue_matrices.at({"eth0", ""}).total(), 290U);
  ASSERT_EQ(table.devices[0].drops.size(), 1U);
  EXPECT_EQ(table.devices[0].drops[0].delta, 4U);
}

TEST(TopDeviceSelection, ADeviceWithNoQueueGetsAnEmptyMatrix) {
  const TopReading reading = reading_from_exposition(page(1));
  RateTable table = compute_rate_table(reading, reading);
  select_device(table, reading, reading, "veth1");
  ASSERT_EQ(table.devices.size(), 1U);
  EXPECT_TRUE(table.queue_matrices.at({"veth1", ""}).empty());
}

TEST(TopDeviceSelection, NoMatrixWhenTheSourceHasNoQueues) {
  TopReading reading;
  reading.queues_absent = "top's own probe reads no RX queues";
  reading.devices[{"eth0", ""}][0] = {1, 1};
  RateTable table = compute_rate_table(reading, reading);
  select_device(table, reading, reading, "eth0");
  EXPECT_EQ(table.devices.size(), 1U);
  EXPECT_TRUE(table.queue_matrices.empty());
  select_device(table, reading, reading, "nosuch0");
  EXPECT_TRUE(table.devices.empty());
}

}  // namespace
}  // namespace netif_rx
