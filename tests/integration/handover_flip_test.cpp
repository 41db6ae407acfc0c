// The handover's write of the new generation (after its flag and a grace
// period), landed between the old and the new program's runs for one event: the old program counted
// the event with its generation and the new one sees its own. Made certain, not waited for: a test
// program (bpf/handover_flip.bpf.c), attached after the old program and before the new one, writes
// the new generation on the first packet of a test device once armed. The event is counted once,
// and none is lost. The same program then forges the old program's mark of an earlier event on a
// later one, outside a handover: the new program counts it all the same. Both with a new exporter
// of this layout and with one of the next layout, whose program reads the old program's marks in
// the old layout's maps.
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "exporter_process.h"
#include "handover_flip.skel.h"
#include "lifecycle_support.h"
#include "netif_rx.h"
#include "private_bpffs.h"
#include "series_query.h"
#include "test_network.h"
#include "util/unique_fd.h"

namespace netif_rx::test {
namespace {

constexpr int kPayloadBytes = 100;
constexpr int kScrapeWaitMs = 10000;  // how long a scrape may take to show the packets sent
constexpr int kBurst = 100;
constexpr std::uint32_t kControlKey = 0;

struct FlipState {  // struct flip_state of the test program
  netif_rx_control to;
  std::uint64_t forge;
  std::uint64_t flips;
  std::uint64_t forges;
};

double packets_of(const Series& series, const std::string& device) {
  return sum_where(series, "netif_rx_packets_total", {{"device", device}});
}

double metric(const Series& series, const std::string& name) { return sum_where(series, name, {}); }

// Sends a burst to the device and returns the settled count of it once it
// reached `expected` (or 10 s passed), after a pause in which an overshoot
// would show.
double send_and_settle(ExporterProcess& exporter, const std::string& netns, const VethPair& pair,
                       double expected) {
  EXPECT_EQ(send_udp(netns, 0, pair.a.address, kBurst, kPayloadBytes), kBurst);
  scrape_until(
      exporter, [&](const Series& s) { return packets_of(s, pair.a.name) >= expected; },
      kScrapeWaitMs);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  return packets_of(exporter.scrape(), pair.a.name);
}

std::uint32_t own_netns_inum() {
  struct stat status {};
  if (::stat("/proc/self/ns/net", &status) != 0) return 0;
  return static_cast<std::uint32_t>(status.st_ino);
}

netif_rx_control read_control(int fd) {
  netif_rx_control control{};
  EXPECT_EQ(bpf_map_lookup_elem(fd, &kControlKey, &control), 0);
  return control;
}

// The skbs a probe's array counted for `ifindex`, summed over the CPUs.
double slot_skbs(int host_counters, int ifindex) {
  std::vector<netif_rx_counters> per_cpu(static_cast<std::size_t>(libbpf_num_possible_cpus()));
  const auto key = static_cast<std::uint32_t>(ifindex);
  EXPECT_EQ(bpf_map_lookup_elem(host_counters, &key, per_cpu.data()), 0);
  double skbs = 0;
  for (const auto& cpu : per_cpu) skbs += static_cast<double>(cpu.skbs);
  return skbs;
}

// The map named `name` that the program pinned at `program_pin` uses.
UniqueFd map_of_program(const std::string& program_pin, const std::string& name) {
  const UniqueFd program(bpf_obj_get(program_pin.c_str()));
  if (!program.valid()) return UniqueFd();
  std::vector<std::uint32_t> map_ids(64);
  bpf_prog_info info{};
  info.nr_map_ids = static_cast<std::uint32_t>(map_ids.size());
  info.map_ids = reinterpret_cast<std::uintptr_t>(map_ids.data());
  std::uint32_t length = sizeof(info);
  if (bpf_obj_get_info_by_fd(program.get(), &info, &length) != 0) return UniqueFd();
  for (std::uint32_t i = 0; i < std::min<std::uint32_t>(info.nr_map_ids, 64); ++i) {
    UniqueFd map(bpf_map_get_fd_by_id(map_ids[i]));
    bpf_map_info map_info{};
    std::uint32_t map_length = sizeof(map_info);
    if (map.valid() && bpf_obj_get_info_by_fd(map.get(), &map_info, &map_length) == 0 &&
        name == map_info.name)
      return map;
  }
  return UniqueFd();
}

struct FlipProgram {
  handover_flip* skeleton = nullptr;
  bpf_link* link = nullptr;
  ~FlipProgram() {
    bpf_link__destroy(link);
    handover_flip::destroy(skeleton);
  }
};

// The new exporter: this build (the old program's maps adopted, one set of
// maps), or the next layout's (its own maps, the old ones' counts carried).
struct NewExporter {
  const char* name;
  bool next_layout;
};

void PrintTo(const NewExporter& exporter, std::ostream* out) { *out << exporter.name; }

class HandoverFlip : public ::testing::TestWithParam<NewExporter> {};

TEST_P(HandoverFlip, AnEventBothProgramsTakeForTheirsIsCountedOnce) {
  const bool next_layout = GetParam().next_layout;
  ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
  PrivateBpffs bpffs;
  ASSERT_TRUE(bpffs.mounted()) << "cannot mount a BPF filesystem (mount -t bpf): the pinned "
                                  "probe cannot be tested; the kernel needs CONFIG_BPF_SYSCALL";
  TestNetwork network("nrf" + std::to_string(::getpid() % 100000));
  const std::string ns = network.add_namespace("a");
  const VethPair pair = network.add_veth_pair("h0", "", "a0", ns, 0);
  // The test reads the device's slot of the array: an array large enough for
  // its ifindex, however many devices the host made before (ifindexes only grow).
  const int pair_ifindex = network.ifindex("", pair.a.name);
  const int array_slots = std::max(NETIF_RX_DEFAULT_MAX_DEVICES, (pair_ifindex / 4096 + 2) * 4096);
  const std::string config =
      "poll_interval: 100ms\nmax_devices: " + std::to_string(array_slots) + "\n";
  const std::string pin_path = "--bpf.pin-path=" + bpffs.pin_path();

  // The old exporter counts a burst, then dies: its program goes on counting.
  auto exporter = std::make_unique<ExporterProcess>(config, std::vector<std::string>{pin_path});
  ASSERT_TRUE(exporter->wait_ready()) << exporter->log();
  ASSERT_EQ(send_and_settle(*exporter, ns, pair, kBurst), kBurst) << exporter->log();
  exporter->kill_hard();

  // Its program stays attached past the handover (the test holds its link),
  // and the test program is attached after it.
  const std::string link_pin = bpffs.layout_dir() + "/link";
  const UniqueFd old_link(bpf_obj_get(link_pin.c_str()));
  ASSERT_TRUE(old_link.valid()) << link_pin;
  const std::string control_pin = bpffs.pin_path() + "/control";
  const UniqueFd control(bpf_obj_get(control_pin.c_str()));
  ASSERT_TRUE(control.valid()) << control_pin;
  const netif_rx_control old_generation = read_control(control.get());
  ASSERT_NE(old_generation.generation, 0U);

  const int ifindex = pair_ifindex;
  FlipProgram flip;
  flip.skeleton = handover_flip::open();
  ASSERT_NE(flip.skeleton, nullptr);
  flip.skeleton->rodata->netns_inum = own_netns_inum();
  flip.skeleton->rodata->ifindex = ifindex;
  ASSERT_EQ(bpf_map__reuse_fd(flip.skeleton->maps.probe_control, control.get()), 0);
  const std::string totals_pin = bpffs.layout_dir() + "/probe_totals";
  const UniqueFd totals(bpf_obj_get(totals_pin.c_str()));
  ASSERT_TRUE(totals.valid()) << totals_pin;
  ASSERT_EQ(bpf_map__reuse_fd(flip.skeleton->maps.probe_totals, totals.get()), 0);
  const std::string slots_pin = bpffs.layout_dir() + "/host_counters";
  const UniqueFd old_slots(bpf_obj_get(slots_pin.c_str()));
  ASSERT_TRUE(old_slots.valid()) << slots_pin;
  ASSERT_EQ(handover_flip::load(flip.skeleton), 0);
  flip.link = bpf_program__attach(flip.skeleton->progs.flip_between);
  ASSERT_NE(flip.link, nullptr);
  const int flip_state = bpf_map__fd(flip.skeleton->maps.flip);

  // The new exporter hands over to its program, attached after both; its
  // clean stop removes the pins.
  exporter = std::make_unique<ExporterProcess>(
      config, std::vector<std::string>{pin_path}, "", std::vector<std::string>{},
      next_layout ? NETIF_RX_NEXT_LAYOUT_EXPORTER_BINARY : "");
  ASSERT_TRUE(exporter->wait_ready()) << exporter->log();
  const netif_rx_control new_generation = read_control(control.get());
  ASSERT_NE(new_generation.generation, old_generation.generation) << exporter->log();
  ASSERT_EQ(send_and_settle(*exporter, ns, pair, 2 * kBurst), 2 * kBurst) << exporter->log();

  // The handover's view of the old program's totals, as the new exporter
  // sets it for its handover (and empties it after).
  const std::string new_program_pin = bpffs.pin_path() + "/v" +
                                      std::to_string(NETIF_RX_PIN_LAYOUT + (next_layout ? 1 : 0)) +
                                      "/program";
  const UniqueFd view = map_of_program(new_program_pin, "handover_totals");
  ASSERT_TRUE(view.valid()) << new_program_pin;
  std::uint32_t view_entry = 0;
  EXPECT_NE(bpf_map_lookup_elem(view.get(), &kControlKey, &view_entry), 0)
      << "the handover left its view of the old program's totals set";
  const int old_totals = totals.get();
  ASSERT_EQ(bpf_map_update_elem(view.get(), &kControlKey, &old_totals, BPF_ANY), 0);

  // The old program counts again, with the handover's flag set beside its
  // generation as the handover writes it first (marks are written only
  // while it is set), and the first packet of the next burst hands over
  // between its run and the new program's, as the handover writes it after
  // a grace period; the flag is cleared after the burst, as the handover
  // does after another. Of another layout, the old program counts that
  // packet in its own maps, whose counts were carried already: the new
  // exporter shows one packet less, and the old maps one more.
  const double old_slot_before = slot_skbs(old_slots.get(), ifindex);
  const double counted_by_old = next_layout ? 1 : 0;
  ASSERT_EQ(new_generation.counting_since_ns & NETIF_RX_CONTROL_HANDOVER, 0U);
  netif_rx_control flagged = old_generation;
  flagged.counting_since_ns |= NETIF_RX_CONTROL_HANDOVER;
  ASSERT_EQ(bpf_map_update_elem(control.get(), &kControlKey, &flagged, BPF_ANY), 0);
  FlipState armed{new_generation, 0, 0, 0};
  armed.to.counting_since_ns |= NETIF_RX_CONTROL_HANDOVER;
  ASSERT_EQ(bpf_map_update_elem(flip_state, &kControlKey, &armed, BPF_ANY), 0);
  const double counted = send_and_settle(*exporter, ns, pair, 3 * kBurst - counted_by_old);
  const double old_slot_after = slot_skbs(old_slots.get(), ifindex);
  EXPECT_EQ(read_control(control.get()).counting_since_ns, armed.to.counting_since_ns);
  ASSERT_EQ(bpf_map_update_elem(control.get(), &kControlKey, &new_generation, BPF_ANY), 0);

  FlipState after{};
  ASSERT_EQ(bpf_map_lookup_elem(flip_state, &kControlKey, &after), 0);
  EXPECT_GE(after.flips, 1U) << "the test program never wrote the control map";
  std::printf(
      "handover flip inside one event (%s): sent %d, counted %.0f by the new exporter and %.0f "
      "more by the old program in maps of its own, flips %llu\n",
      GetParam().name, 3 * kBurst, counted, next_layout ? old_slot_after - old_slot_before : 0,
      static_cast<unsigned long long>(after.flips));
  EXPECT_EQ(counted, 3 * kBurst - counted_by_old) << exporter->log();
  EXPECT_EQ(next_layout ? old_slot_after - old_slot_before : 0, counted_by_old);

  // Outside a handover a mark is never trusted: the old program's mark of an
  // earlier event whose skb had the address of the next packet's (left on a
  // CPU that received nothing while the old program was detached) must not
  // make the new program leave that packet uncounted.
  FlipState forge{};
  forge.forge = 1 + (old_generation.generation & 1);
  ASSERT_EQ(bpf_map_update_elem(flip_state, &kControlKey, &forge, BPF_ANY), 0);
  const double counted_after_forge =
      send_and_settle(*exporter, ns, pair, 4 * kBurst - counted_by_old);
  ASSERT_EQ(bpf_map_lookup_elem(flip_state, &kControlKey, &after), 0);
  EXPECT_GE(after.forges, 1U) << "the test program never forged a mark";
  std::printf("a mark older than its event (%s): sent %d, counted %.0f, forged %llu\n",
              GetParam().name, 4 * kBurst, counted_after_forge,
              static_cast<unsigned long long>(after.forges));
  EXPECT_EQ(counted_after_forge, 4 * kBurst - counted_by_old) << exporter->log();
  const Series settled = exporter->scrape();
  const double accounted = metric(settled, "netif_rx_packets_total") +
                           metric(settled, "netif_rx_untracked_packets_total") +
                           metric(settled, "netif_rx_removed_packets_total");
  EXPECT_GE(accounted, metric(settled, "netif_rx_counted_packets_total"));
  ASSERT_EQ(exporter->stop(), 0) << exporter->log();
}

std::string exporter_name(const ::testing::TestParamInfo<NewExporter>& param) {
  return param.param.next_layout ? "NextLayout" : "SameLayout";
}

INSTANTIATE_TEST_SUITE_P(Exporters, HandoverFlip,
                         ::testing::Values(NewExporter{"this layout", false},
                                           NewExporter{"the next layout", true}),
                         exporter_name);

}  // namespace
}  // namespace netif_rx::test
