// A handover whose last step fails (issue #37): an exporter adopts a pinned
// probe, attaches its own program and flips the counting over to it, and then
// re-pinning the link fails, after the program's pin was replaced (the fail
// point handover.repin_link of util/test_hook.h, in the test build). The
// exporter must roll back: the adopted program counts again, its pins are
// whole again (the pinned program is the one the pinned link attaches), the
// exporter says so in one line and stops; the next exporter adopts the probe
// and every packet sent throughout is counted exactly once, against the
// kernel's own count of what was sent.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "exporter_process.h"
#include "lifecycle_support.h"
#include "private_bpffs.h"
#include "restart_watch.h"
#include "series_query.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

constexpr const char* kConfig = "poll_interval: 100ms\n";
constexpr int kScrapeWaitMs = 10000;

double packets_of(const Series& series, const std::string& device) {
  return sum_where(series, "netif_rx_packets_total", {{"device", device}});
}

double metric(const Series& series, const std::string& name) { return sum_where(series, name, {}); }

int lines_with(const std::string& log, const std::string& text) {
  int lines = 0;
  for (auto at = log.find(text); at != std::string::npos; at = log.find(text, at + 1)) ++lines;
  return lines;
}

TEST(HandoverRollbackTest, ARepinThatFailsAfterTheFlipRollsBackWithTheCountsIntact) {
#ifndef NETIF_RX_TEST_HOOKS
  GTEST_SKIP() << "the fail points exist only in the sanitizer build (NETIF_RX_TEST_HOOKS)";
#endif
  ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
  PrivateBpffs bpffs;
  ASSERT_TRUE(bpffs.mounted()) << "cannot mount a BPF filesystem (mount -t bpf)";
  TestNetwork network("nrb" + std::to_string(::getpid() % 100000));
  const std::string ns = network.add_namespace("a");
  const VethPair pair = network.add_veth_pair("h0", "", "a0", ns, 0);
  const std::vector<std::string> flags{"--bpf.pin-path=" + bpffs.pin_path()};
  const long long received_before = link_counter("", pair.a.name, "rx_packets");
  ASSERT_GE(received_before, 0);

  auto first = std::make_unique<ExporterProcess>(kConfig, flags);
  ASSERT_TRUE(first->wait_ready()) << first->log();
  const double attach_time = metric(first->scrape(), "netif_rx_exporter_probe_attach_time_seconds");
  ASSERT_GT(attach_time, 0) << first->log();

  PacketStream stream(ns, pair.a.address);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(first->stop(), 0) << first->log();

  // Adopts, attaches, flips, then fails to re-pin the link: rolled back, not started.
  ExporterProcess failing(kConfig, flags, "", {}, "", {"NETIF_RX_TEST_FAIL=handover.repin_link"});
  EXPECT_FALSE(failing.wait_ready());
  const std::string failed_log = failing.log();
  ASSERT_EQ(lines_with(failed_log, "test failure at handover.repin_link"), 1)
      << "the fail point was not reached (is this the test build?)\n"
      << failed_log;
  EXPECT_EQ(lines_with(failed_log, "level=error"), 1) << failed_log;
  EXPECT_EQ(lines_with(failed_log,
                       "the handover failed and was rolled back: the adopted probe "
                       "counts again, its pins kept"),
            1)
      << failed_log;
  EXPECT_EQ(lines_with(failed_log, "counting handed over"), 0) << failed_log;
  if (const auto at = failed_log.find("rolled back"); at != std::string::npos) {
    const auto begin = failed_log.rfind('\n', at) + 1;  // npos + 1 = 0: the first line
    std::printf("handover rollback: the exporter said: %s\n",
                failed_log.substr(begin, failed_log.find('\n', at) - begin).c_str());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the adopted program counts alone

  // The next exporter adopts the probe (no fresh start), the counts whole.
  auto next = std::make_unique<ExporterProcess>(kConfig, flags);
  ASSERT_TRUE(next->wait_ready()) << next->log();
  const std::string next_log = next->log();
  EXPECT_EQ(lines_with(next_log, "the counts start from zero"), 0) << next_log;
  EXPECT_NE(next_log.find("probe adopted"), std::string::npos) << next_log;
  const Series adopted = next->scrape();
  EXPECT_EQ(metric(adopted, "netif_rx_exporter_probe_adopted"), 1);
  EXPECT_NEAR(metric(adopted, "netif_rx_exporter_probe_attach_time_seconds"), attach_time, 0.01);

  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const long long sent = stream.stop();
  ASSERT_GT(sent, 0);
  scrape_until(
      *next, [&](const Series& s) { return packets_of(s, pair.a.name) >= sent; }, kScrapeWaitMs);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // an overshoot would show
  const double counted = packets_of(next->scrape(), pair.a.name);
  const long long received = link_counter("", pair.a.name, "rx_packets") - received_before;
  std::printf("handover rollback: sent %lld, the kernel received %lld, counted %.0f\n", sent,
              received, counted);
  EXPECT_EQ(received, sent);
  EXPECT_EQ(counted, static_cast<double>(received)) << next->log();
  EXPECT_EQ(next->stop(), 0) << next->log();
}

}  // namespace
}  // namespace netif_rx::test
