// The probe pinned across restarts (--bpf.pin-path): a steady stream of
// packets through a test veth while the exporter is stopped (every clean stop
// keeps its pins) and killed, again and again. Each new exporter hands the counting over
// to its own program; every packet is counted exactly once, no counter ever
// goes down, and the probe's attach time stays. An exporter of another
// layout (a test build with a map more) takes the counting over the same way
// and carries the counts into its own maps, and back. Also: the single owner
// of a pin directory, pins that are not the exporter's, and `unpin`, the one
// way the pins are removed.
#include <bpf/bpf.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "command.h"
#include "exporter_process.h"
#include "lifecycle_support.h"
#include "netif_rx.h"
#include "private_bpffs.h"
#include "restart_watch.h"
#include "series_query.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kPayloadBytes = 100;
constexpr int kScrapeWaitMs = 10000;  // how long a scrape may take to show the packets sent
constexpr const char* kConfig = "poll_interval: 100ms\n";

// Whether the handover read the old program's marks (a refused map-of-maps
// update only warns, and an event straddling the flip may then count twice).
bool read_the_old_marks(const std::string& log) {
  return log.find("handover marks") == std::string::npos &&
         log.find("view of the old program's totals stays") == std::string::npos;
}

double packets_of(const Series& series, const std::string& device) {
  return sum_where(series, "netif_rx_packets_total", {{"device", device}});
}

double metric(const Series& series, const std::string& name) { return sum_where(series, name, {}); }

// The id of the program that counts (netif_rx_bpf_program_info's id label;
// the drop and NAPI poll counters, loaded anew by every exporter, are not it).
std::string program_id(const Series& series) {
  for (const auto& [key, value] : series) {
    if (metric_of(key) == "netif_rx_bpf_program_info" &&
        labels_of(key)["program"] != "netif_rx_drops" &&
        labels_of(key)["program"] != "netif_rx_napi")
      return labels_of(key)["id"];
  }
  return "";
}

// Sends `count` datagrams to `pair.a` from `netns`, waits until they are
// counted, deletes the device and waits until they are removed counts.
void count_and_delete(ExporterProcess& exporter, TestNetwork& network, const std::string& netns,
                      const VethPair& pair, int count) {
  ASSERT_EQ(send_udp(netns, 0, pair.a.address, count, kPayloadBytes), count);
  ASSERT_EQ(
      packets_of(scrape_until(
                     exporter, [&](const Series& s) { return packets_of(s, pair.a.name) >= count; },
                     kScrapeWaitMs),
                 pair.a.name),
      count);
  network.delete_link("", pair.a.name);
  const Series after_deletion = scrape_until(
      exporter,
      [count](const Series& s) { return metric(s, "netif_rx_removed_packets_total") >= count; },
      kScrapeWaitMs);
  ASSERT_GE(metric(after_deletion, "netif_rx_removed_packets_total"), count) << exporter.log();
}

// exported + untracked + removed = counted, up to the loopback packets of the
// scrapes that arrive while a poll reads (counted is read first).
void expect_every_packet_accounted_for(const Series& settled) {
  const double accounted = metric(settled, "netif_rx_packets_total") +
                           metric(settled, "netif_rx_untracked_packets_total") +
                           metric(settled, "netif_rx_removed_packets_total");
  const double probe_counted = metric(settled, "netif_rx_counted_packets_total");
  EXPECT_GE(accounted, probe_counted);
  EXPECT_LE(accounted - probe_counted, 50)
      << "accounted " << accounted << ", counted " << probe_counted;
}

class PinnedRestartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
    ASSERT_TRUE(bpffs_.mounted()) << "cannot mount a BPF filesystem (mount -t bpf): the pinned "
                                     "probe cannot be tested; the kernel needs CONFIG_BPF_SYSCALL";
  }

  // With --bpf.pin-path alone, as a user starts it. `binary`: another build
  // of the exporter (empty: the one under test).
  std::unique_ptr<ExporterProcess> start(const std::string& config = kConfig,
                                         const std::string& binary = "") {
    std::vector<std::string> flags{"--bpf.pin-path=" + bpffs_.pin_path()};
    auto exporter =
        std::make_unique<ExporterProcess>(config, flags, "", std::vector<std::string>{}, binary);
    return exporter;
  }

  // `netif_rx_exporter unpin --bpf.pin-path=...`, as an uninstall runs it.
  CommandResult unpin() const {
    return run_command({NETIF_RX_EXPORTER_BINARY, "unpin", "--bpf.pin-path=" + bpffs_.pin_path()});
  }

  // A clean stop keeps the pins; unpin removes them all.
  void expect_stop_keeps_pins_and_unpin_removes_them(ExporterProcess& exporter) {
    ASSERT_EQ(exporter.stop(), 0) << exporter.log();
    EXPECT_NE(exporter.log().find("keeping the probe pinned"), std::string::npos) << exporter.log();
    EXPECT_TRUE(std::filesystem::exists(bpffs_.layout_dir() + "/link"));
    const CommandResult removed = unpin();
    EXPECT_EQ(removed.exit_code, 0) << removed.output;
    EXPECT_FALSE(std::filesystem::exists(bpffs_.pin_path())) << removed.output;
  }

  // A one-entry array map named `map_name` pinned at `directory`/`file`, not
  // the probe's shape: the exporter refuses to start, naming it, and leaves it.
  void expect_foreign_map_refused(const std::string& directory, const std::string& file,
                                  const char* map_name) {
    std::filesystem::create_directories(directory);
    const int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, map_name, 4, 8, 1, nullptr);
    ASSERT_GE(fd, 0);
    const std::string foreign = directory + "/" + file;
    ASSERT_EQ(bpf_obj_pin(fd, foreign.c_str()), 0);
    ::close(fd);

    auto exporter = start();
    EXPECT_FALSE(exporter->wait_ready());
    EXPECT_NE(exporter->log().find("refusing the pin " + foreign), std::string::npos)
        << exporter->log();
    EXPECT_TRUE(std::filesystem::exists(foreign));
    std::filesystem::remove_all(bpffs_.pin_path());
  }

  PrivateBpffs bpffs_;
};

TEST_F(PinnedRestartTest, RestartsLoseNoPacketAndCountNoneTwice) {
  TestNetwork network("nrp" + std::to_string(::getpid() % 100000));
  const std::string ns = network.add_namespace("a");
  const VethPair stream_pair = network.add_veth_pair("h0", "", "a0", ns, 0);
  const VethPair gone_pair = network.add_veth_pair("h1", "", "a1", ns, 1);
  const VethPair gone_while_down = network.add_veth_pair("h2", "", "a2", ns, 2);

  ScrapeWatch watch;
  auto exporter = start();
  ASSERT_TRUE(exporter->wait_ready()) << exporter->log();
  watch.watch(exporter->port());
  const double attach_time =
      metric(exporter->scrape(), "netif_rx_exporter_probe_attach_time_seconds");
  ASSERT_GT(attach_time, 0) << exporter->log();
  EXPECT_EQ(metric(exporter->scrape(), "netif_rx_exporter_probe_adopted"), 0);
  std::string counting_program = program_id(exporter->scrape());
  ASSERT_NE(counting_program, "") << exporter->log();

  // A device deleted before the restarts: its packets move to the removed
  // counter, which the next exporters must go on from.
  ASSERT_NO_FATAL_FAILURE(count_and_delete(*exporter, network, ns, gone_pair, 200));
  // A device that goes while no exporter runs (below): its counts too.
  ASSERT_EQ(send_udp(ns, 0, gone_while_down.a.address, 150, kPayloadBytes), 150);
  ASSERT_EQ(
      packets_of(scrape_until(
                     *exporter,
                     [&](const Series& s) { return packets_of(s, gone_while_down.a.name) >= 150; },
                     kScrapeWaitMs),
                 gone_while_down.a.name),
      150);

  PacketStream stream(ns, stream_pair.a.address);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  constexpr int kRestarts = 4;
  std::vector<double> process_starts;
  for (int restart = 0; restart < kRestarts; ++restart) {
    const bool crash = restart % 2 == 1;
    if (crash) {
      exporter->kill_hard();
    } else {
      ASSERT_EQ(exporter->stop(), 0) << exporter->log();
    }
    if (restart == 0) network.delete_link("", gone_while_down.a.name);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // down: the probe counts alone
    exporter = start();
    ASSERT_TRUE(exporter->wait_ready()) << exporter->log();
    watch.watch(exporter->port());
    const Series series = exporter->scrape();
    EXPECT_NEAR(metric(series, "netif_rx_exporter_probe_attach_time_seconds"), attach_time, 0.01)
        << "restart " << restart << ": the probe was attached anew\n"
        << exporter->log();
    process_starts.push_back(metric(series, "process_start_time_seconds"));
    EXPECT_EQ(metric(series, "netif_rx_exporter_probe_adopted"), 1);
    EXPECT_NE(exporter->log().find("probe adopted"), std::string::npos) << exporter->log();
    // Every restart hands the counting over to the new exporter's own program.
    const std::string new_program = program_id(series);
    EXPECT_NE(new_program, counting_program) << "restart " << restart << "\n" << exporter->log();
    EXPECT_NE(exporter->log().find("counting handed over"), std::string::npos) << exporter->log();
    EXPECT_TRUE(read_the_old_marks(exporter->log())) << exporter->log();
    counting_program = new_program;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  const long long sent = stream.stop();
  const Series final_series = scrape_until(
      *exporter, [&](const Series& s) { return packets_of(s, stream_pair.a.name) >= sent; },
      kScrapeWaitMs);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // an overshoot would show
  const Series settled = exporter->scrape();
  watch.stop();
  const double counted = packets_of(settled, stream_pair.a.name);
  std::printf(
      "pinned restarts (%d, SIGTERM and kill -9 in turn): sent %lld, "
      "counted %.0f, longest scrape gap %lld ms over %d scrapes\n",
      kRestarts, sent, counted, static_cast<long long>(watch.longest_gap().count()),
      watch.scrapes());
  EXPECT_EQ(counted, static_cast<double>(sent)) << exporter->log();
  EXPECT_EQ(watch.decreases(), std::vector<std::string>{});
  EXPECT_GE(metric(settled, "netif_rx_removed_packets_total"), 350);
  EXPECT_TRUE(std::is_sorted(process_starts.begin(), process_starts.end()));

  expect_every_packet_accounted_for(settled);
  (void)final_series;

  expect_stop_keeps_pins_and_unpin_removes_them(*exporter);
}

// The restart a new user tries (issue #37): --bpf.pin-path alone, 1,000
// datagrams, SIGTERM (what docker restart, podman restart and kill send),
// 1,000 more while no exporter runs, a new exporter: it shows all 2,000; then
// the same with SIGINT (Ctrl-C). The pins stay on every clean stop.
TEST_F(PinnedRestartTest, ACleanStopWithThePinPathAloneKeepsTheCounts) {
  TestNetwork network("nrk" + std::to_string(::getpid() % 100000));
  const std::string ns = network.add_namespace("a");
  const VethPair pair = network.add_veth_pair("h0", "", "a0", ns, 0);
  constexpr int kBurst = 1000;
  const auto send_burst = [&] {
    ASSERT_EQ(send_udp(ns, 0, pair.a.address, kBurst, kPayloadBytes), kBurst);
  };
  const auto counted_once_settled = [&](ExporterProcess& exporter, int expected) {
    scrape_until(
        exporter, [&](const Series& s) { return packets_of(s, pair.a.name) >= expected; },
        kScrapeWaitMs);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // an overshoot would show
    return packets_of(exporter.scrape(), pair.a.name);
  };

  auto exporter = start();
  ASSERT_TRUE(exporter->wait_ready()) << exporter->log();
  ASSERT_NO_FATAL_FAILURE(send_burst());
  ASSERT_EQ(counted_once_settled(*exporter, kBurst), kBurst) << exporter->log();

  int expected = kBurst;
  for (const int stop_signal : {SIGTERM, SIGINT}) {
    const char* name = stop_signal == SIGTERM ? "SIGTERM" : "SIGINT";
    ASSERT_EQ(exporter->stop_with(stop_signal), 0) << name << "\n" << exporter->log();
    EXPECT_NE(exporter->log().find("keeping the probe pinned"), std::string::npos)
        << name << "\n"
        << exporter->log();
    ASSERT_TRUE(std::filesystem::exists(bpffs_.layout_dir() + "/link")) << name;
    ASSERT_NO_FATAL_FAILURE(send_burst());  // while no exporter runs
    expected += kBurst;

    exporter = start();
    ASSERT_TRUE(exporter->wait_ready()) << exporter->log();
    EXPECT_EQ(metric(exporter->scrape(), "netif_rx_exporter_probe_adopted"), 1) << exporter->log();
    const double counted = counted_once_settled(*exporter, expected);
    std::printf("--bpf.pin-path alone, %s, %d datagrams while down: sent %d, exported %.0f\n", name,
                kBurst, expected, counted);
    EXPECT_EQ(counted, expected) << name << "\n" << exporter->log();
    if (stop_signal == SIGTERM) {
      ASSERT_NO_FATAL_FAILURE(send_burst());  // the adopted probe counts on
      expected += kBurst;
      EXPECT_EQ(counted_once_settled(*exporter, expected), expected) << exporter->log();
    }
  }
  expect_stop_keeps_pins_and_unpin_removes_them(*exporter);
}

// unpin removes what the exporter pinned and the probe detaches: its program
// is unloaded, packets after it are counted by nothing, and the next exporter
// starts from zero. While an exporter runs on the pins it refuses, in one
// line naming the exporter, and touches nothing. With nothing pinned it says
// so and succeeds (an uninstall may run it twice).
TEST_F(PinnedRestartTest, UnpinDetachesTheProbeAndRefusesWhileAnExporterRuns) {
  TestNetwork network("nru" + std::to_string(::getpid() % 100000));
  const std::string ns = network.add_namespace("a");
  const VethPair pair = network.add_veth_pair("h0", "", "a0", ns, 0);

  const CommandResult nothing = unpin();
  EXPECT_EQ(nothing.exit_code, 0) << nothing.output;
  EXPECT_EQ(nothing.output, "nothing pinned at " + bpffs_.pin_path() + "\n");
  EXPECT_FALSE(std::filesystem::exists(bpffs_.pin_path()));

  auto exporter = start();
  ASSERT_TRUE(exporter->wait_ready()) << exporter->log();
  ASSERT_EQ(send_udp(ns, 0, pair.a.address, 100, kPayloadBytes), 100);
  scrape_until(
      *exporter, [&](const Series& s) { return packets_of(s, pair.a.name) >= 100; }, kScrapeWaitMs);
  const std::string program = program_id(exporter->scrape());
  ASSERT_NE(program, "") << exporter->log();

  const CommandResult refused = unpin();
  EXPECT_EQ(refused.exit_code, 1) << refused.output;
  EXPECT_EQ(refused.output, "netif_rx_exporter: error: an exporter (pid " +
                                std::to_string(exporter->pid()) + ") runs on the probe pinned at " +
                                bpffs_.pin_path() + ": stop it first, then unpin\n");
  EXPECT_TRUE(std::filesystem::exists(bpffs_.layout_dir() + "/link"));
  EXPECT_TRUE(std::filesystem::exists(bpffs_.pin_path() + "/control"));
  EXPECT_EQ(packets_of(exporter->scrape(), pair.a.name), 100) << exporter->log();

  ASSERT_EQ(exporter->stop(), 0) << exporter->log();
  const CommandResult removed = unpin();
  EXPECT_EQ(removed.exit_code, 0) << removed.output;
  EXPECT_EQ(removed.output, "removed the probe pinned at " + bpffs_.pin_path() + " (control, v" +
                                std::to_string(NETIF_RX_PIN_LAYOUT) +
                                "): it is detached and its counts are gone\n");
  EXPECT_FALSE(std::filesystem::exists(bpffs_.pin_path()));
  // Its last reference gone, the program is unloaded (freed after an RCU
  // grace period): nothing counts any more.
  bool unloaded = false;
  for (int i = 0; i < 100 && !unloaded; ++i) {
    const int fd = bpf_prog_get_fd_by_id(static_cast<std::uint32_t>(std::stoul(program)));
    unloaded = fd < 0;
    if (fd >= 0) ::close(fd);
    if (!unloaded) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(unloaded) << "program " << program << " is still loaded after unpin";

  ASSERT_EQ(send_udp(ns, 0, pair.a.address, 50, kPayloadBytes), 50);  // counted by nothing
  exporter = start();
  ASSERT_TRUE(exporter->wait_ready()) << exporter->log();
  const Series fresh = exporter->scrape();
  EXPECT_EQ(metric(fresh, "netif_rx_exporter_probe_adopted"), 0) << exporter->log();
  EXPECT_EQ(packets_of(fresh, pair.a.name), 0) << exporter->log();
  ASSERT_EQ(send_udp(ns, 0, pair.a.address, 30, kPayloadBytes), 30);
  scrape_until(
      *exporter, [&](const Series& s) { return packets_of(s, pair.a.name) >= 30; }, kScrapeWaitMs);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double counted = packets_of(exporter->scrape(), pair.a.name);
  std::printf("unpin: 100 before, 50 after unpin (no exporter), 30 with a new one: exported %.0f\n",
              counted);
  EXPECT_EQ(counted, 30) << exporter->log();
  expect_stop_keeps_pins_and_unpin_removes_them(*exporter);
}

// The classic tracepoint's twin hands over the same way (its perf-event link
// is a BPF link from Linux 5.15 on).
TEST_F(PinnedRestartTest, ClassicTracepointHandsOverWithoutLoss) {
  TestNetwork network("nrq" + std::to_string(::getpid() % 100000));
  const std::string ns = network.add_namespace("a");
  const VethPair pair = network.add_veth_pair("h0", "", "a0", ns, 0);
  const auto start_twin = [this] {
    std::vector<std::string> flags{"--bpf.pin-path=" + bpffs_.pin_path()};
    return std::make_unique<ExporterProcess>("poll_interval: 100ms\nattach: tracepoint\n", flags,
                                             "", with_tracefs());
  };

  auto exporter = start_twin();
  ASSERT_TRUE(exporter->wait_ready()) << exporter->log();
  const std::string first_program = program_id(exporter->scrape());
  PacketStream stream(ns, pair.a.address);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(exporter->stop(), 0) << exporter->log();
  exporter = start_twin();
  ASSERT_TRUE(exporter->wait_ready()) << exporter->log();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const long long sent = stream.stop();
  scrape_until(
      *exporter, [&](const Series& s) { return packets_of(s, pair.a.name) >= sent; },
      kScrapeWaitMs);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // an overshoot would show
  const Series settled = exporter->scrape();
  std::printf("classic tracepoint handover: sent %lld, counted %.0f\n", sent,
              packets_of(settled, pair.a.name));
  EXPECT_EQ(packets_of(settled, pair.a.name), static_cast<double>(sent)) << exporter->log();
  EXPECT_EQ(metric(settled, "netif_rx_exporter_probe_adopted"), 1) << exporter->log();
  EXPECT_NE(program_id(settled), first_program);
  EXPECT_NE(exporter->log().find("counting handed over"), std::string::npos) << exporter->log();
  EXPECT_NE(exporter->log().find("program=netif_rx_tp"), std::string::npos) << exporter->log();
  expect_stop_keeps_pins_and_unpin_removes_them(*exporter);
}

// An exporter that died between the handover's write of the control map and
// its pins leaves the adopted program pinned but idle (the control map names
// a generation no program has): the next exporter adopts it all the same,
// keeps the counts and counts again.
TEST_F(PinnedRestartTest, AnIdlePinnedProgramIsAdoptedWithItsCounts) {
  TestNetwork network("nri" + std::to_string(::getpid() % 100000));
  const std::string ns = network.add_namespace("a");
  const VethPair pair = network.add_veth_pair("h0", "", "a0", ns, 0);

  auto exporter = start();
  ASSERT_TRUE(exporter->wait_ready()) << exporter->log();
  auto stream = std::make_unique<PacketStream>(ns, pair.a.address);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const long long first_sent = stream->stop();
  const Series first = scrape_until(
      *exporter, [&](const Series& s) { return packets_of(s, pair.a.name) >= first_sent; },
      kScrapeWaitMs);
  ASSERT_EQ(packets_of(first, pair.a.name), static_cast<double>(first_sent));
  ASSERT_EQ(exporter->stop(), 0) << exporter->log();

  const std::string control_pin = bpffs_.pin_path() + "/control";
  const int control = bpf_obj_get(control_pin.c_str());
  ASSERT_GE(control, 0) << control_pin;
  const std::uint32_t key = 0;
  netif_rx_control entry{};
  ASSERT_EQ(bpf_map_lookup_elem(control, &key, &entry), 0);
  entry.generation += 1;  // the generation of a program that died unpinned
  ASSERT_EQ(bpf_map_update_elem(control, &key, &entry, BPF_ANY), 0);
  ::close(control);

  exporter = start();
  ASSERT_TRUE(exporter->wait_ready()) << exporter->log();
  const Series adopted = exporter->scrape();
  EXPECT_EQ(metric(adopted, "netif_rx_exporter_probe_adopted"), 1) << exporter->log();
  EXPECT_EQ(packets_of(adopted, pair.a.name), static_cast<double>(first_sent)) << exporter->log();
  // It says what the idle program means: the packets since the last one's end are not counted.
  EXPECT_NE(exporter->log().find("the pinned probe was idle"), std::string::npos)
      << exporter->log();
  stream = std::make_unique<PacketStream>(ns, pair.a.address);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const long long second_sent = stream->stop();
  const Series settled = scrape_until(
      *exporter,
      [&](const Series& s) { return packets_of(s, pair.a.name) >= first_sent + second_sent; },
      kScrapeWaitMs);
  EXPECT_EQ(packets_of(settled, pair.a.name), static_cast<double>(first_sent + second_sent))
      << exporter->log();
  expect_stop_keeps_pins_and_unpin_removes_them(*exporter);
}

// Exporters of two layouts in turn (this build and the next layout's, whose
// maps differ), under a stream to a device of this namespace (the array) and
// one to a device of another namespace (a block, and the hash before it):
// each hands the counting over from the other layout's program and carries
// its counts, so that no packet is lost or counted twice, no counter goes
// down, and the removed counts and the attach time stay.
TEST_F(PinnedRestartTest, ALayoutChangeCarriesTheCountsOverAndBack) {
  TestNetwork network("nrl" + std::to_string(::getpid() % 100000));
  const std::string ns = network.add_namespace("a");
  const VethPair pair = network.add_veth_pair("h0", "", "a0", ns, 0);
  const VethPair gone_pair = network.add_veth_pair("h1", "", "a1", ns, 1);
  // Between two other namespaces: far.a is a device of another namespace.
  const std::string far_ns = network.add_namespace("f");
  const VethPair far = network.add_veth_pair("f0", ns, "f1", far_ns, 2);
  const std::string config = "poll_interval: 100ms\nnamespaces: all\n";
  const std::string this_layout = "v" + std::to_string(NETIF_RX_PIN_LAYOUT);
  const std::string next_layout = "v" + std::to_string(NETIF_RX_PIN_LAYOUT + 1);

  ScrapeWatch watch;
  auto exporter = start(config);
  ASSERT_TRUE(exporter->wait_ready()) << exporter->log();
  watch.watch(exporter->port());
  const double attach_time =
      metric(exporter->scrape(), "netif_rx_exporter_probe_attach_time_seconds");
  ASSERT_GT(attach_time, 0) << exporter->log();

  // Removed counts, which every layout must go on from.
  ASSERT_NO_FATAL_FAILURE(count_and_delete(*exporter, network, ns, gone_pair, 200));

  PacketStream to_this_namespace(ns, pair.a.address);
  PacketStream to_other_namespace(far_ns, far.a.address);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the namespace gets a block
  struct Step {
    std::string binary;  // empty: this layout's
    std::string from;
    std::string to;
    bool crash;
  };
  const std::string next_binary = NETIF_RX_NEXT_LAYOUT_EXPORTER_BINARY;
  const std::vector<Step> steps{{next_binary, this_layout, next_layout, false},
                                {"", next_layout, this_layout, true},
                                {next_binary, this_layout, next_layout, true},
                                {"", next_layout, this_layout, false}};
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Step& step = steps[i];
    if (step.crash) {
      exporter->kill_hard();
    } else {
      ASSERT_EQ(exporter->stop(), 0) << exporter->log();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // down: the probe counts alone
    exporter = start(config, step.binary);
    ASSERT_TRUE(exporter->wait_ready()) << exporter->log();
    watch.watch(exporter->port());
    const std::string log = exporter->log();
    EXPECT_NE(log.find("its counts are carried over"), std::string::npos) << log;
    EXPECT_NE(log.find("from_layout=" + step.from + " to_layout=" + step.to), std::string::npos)
        << log;
    EXPECT_TRUE(read_the_old_marks(log)) << log;
    const Series series = exporter->scrape();
    EXPECT_EQ(metric(series, "netif_rx_exporter_probe_adopted"), 1) << log;
    EXPECT_NEAR(metric(series, "netif_rx_exporter_probe_attach_time_seconds"), attach_time, 0.01)
        << log;
    EXPECT_TRUE(std::filesystem::exists(bpffs_.pin_path() + "/" + step.to + "/carried_counters"));
    EXPECT_FALSE(std::filesystem::exists(bpffs_.pin_path() + "/" + step.from)) << log;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  const long long sent_here = to_this_namespace.stop();
  const long long sent_there = to_other_namespace.stop();
  scrape_until(
      *exporter,
      [&](const Series& s) {
        return packets_of(s, pair.a.name) >= sent_here && packets_of(s, far.a.name) >= sent_there;
      },
      kScrapeWaitMs);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // an overshoot would show
  const Series settled = exporter->scrape();
  watch.stop();
  std::printf(
      "layout changes (%zu, %s <-> %s, SIGTERM and kill -9 in turn): this namespace's device "
      "sent %lld, counted %.0f; another namespace's device sent %lld, counted %.0f; longest "
      "scrape gap %lld ms over %d scrapes\n",
      steps.size(), this_layout.c_str(), next_layout.c_str(), sent_here,
      packets_of(settled, pair.a.name), sent_there, packets_of(settled, far.a.name),
      static_cast<long long>(watch.longest_gap().count()), watch.scrapes());
  EXPECT_EQ(packets_of(settled, pair.a.name), static_cast<double>(sent_here)) << exporter->log();
  EXPECT_EQ(packets_of(settled, far.a.name), static_cast<double>(sent_there)) << exporter->log();
  EXPECT_EQ(watch.decreases(), std::vector<std::string>{});
  EXPECT_GE(metric(settled, "netif_rx_removed_packets_total"), 200);
  expect_every_packet_accounted_for(settled);

  expect_stop_keeps_pins_and_unpin_removes_them(*exporter);
}

// A replacement pin an exporter staged (link_staged) and did not rename over
// the live one, because it died between the two: the next exporter removes
// it and adopts the pins as they are.
TEST_F(PinnedRestartTest, AStagedPinLeftBehindIsRemoved) {
  auto exporter = start();
  ASSERT_TRUE(exporter->wait_ready()) << exporter->log();
  ASSERT_EQ(exporter->stop(), 0) << exporter->log();
  const std::string staged = bpffs_.layout_dir() + "/link_staged";
  const int link = bpf_obj_get((bpffs_.layout_dir() + "/link").c_str());
  ASSERT_GE(link, 0);
  ASSERT_EQ(bpf_obj_pin(link, staged.c_str()), 0);
  ::close(link);

  exporter = start();
  ASSERT_TRUE(exporter->wait_ready()) << exporter->log();
  EXPECT_EQ(metric(exporter->scrape(), "netif_rx_exporter_probe_adopted"), 1) << exporter->log();
  EXPECT_FALSE(std::filesystem::exists(staged));
  EXPECT_NE(exporter->log().find("removing a pin staged"), std::string::npos) << exporter->log();
  expect_stop_keeps_pins_and_unpin_removes_them(*exporter);
}

TEST_F(PinnedRestartTest, SecondExporterOnTheSamePinsFailsNamingTheFirst) {
  auto first = start();
  ASSERT_TRUE(first->wait_ready()) << first->log();
  auto second = start();
  EXPECT_FALSE(second->wait_ready());
  EXPECT_NE(second->log().find("another exporter (pid " + std::to_string(first->pid()) + ")"),
            std::string::npos)
      << second->log();
  expect_stop_keeps_pins_and_unpin_removes_them(*first);
}

// Pins of another layout (an exporter of another version): never read,
// removed, and the exporter starts afresh, saying so.
TEST_F(PinnedRestartTest, AnotherLayoutIsRemovedAndCountingStartsAfresh) {
  const std::string other_layout =
      bpffs_.pin_path() + "/v" + std::to_string(NETIF_RX_PIN_LAYOUT + 1);
  std::filesystem::create_directories(other_layout);
  const int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "probe_totals", 4, 8, 1, nullptr);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(bpf_obj_pin(fd, (other_layout + "/probe_totals").c_str()), 0);
  ::close(fd);

  auto exporter = start();
  ASSERT_TRUE(exporter->wait_ready()) << exporter->log();
  EXPECT_EQ(metric(exporter->scrape(), "netif_rx_exporter_probe_adopted"), 0);
  EXPECT_NE(exporter->log().find("removing the pins of another layout"), std::string::npos)
      << exporter->log();
  EXPECT_FALSE(std::filesystem::exists(other_layout));
  expect_stop_keeps_pins_and_unpin_removes_them(*exporter);
}

TEST_F(PinnedRestartTest, ForeignPinsAreRefusedAndLeftAlone) {
  // A map with one of the probe's names but not its shape.
  expect_foreign_map_refused(bpffs_.layout_dir(), "device_counters", "device_counters");
}

// The control map beside the layouts, of another shape: refused, left alone.
TEST_F(PinnedRestartTest, ForeignControlMapIsRefusedAndLeftAlone) {
  expect_foreign_map_refused(bpffs_.pin_path(), "control", "probe_control");
}

}  // namespace
}  // namespace netif_rx::test
