// Opens the generated skeleton without loading it: no privileges, no kernel
// BPF support needed. Checks that the object the build embeds has the
// programs and maps the daemon expects, laid out as the shared header says.
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "continuity/probe_control.h"
#include "netif_rx.h"
#include "netif_rx_bpf.skel.h"

namespace netif_rx {
namespace {

struct SkeletonDeleter {
  void operator()(netif_rx_bpf* skeleton) const { netif_rx_bpf::destroy(skeleton); }
};
using Skeleton = std::unique_ptr<netif_rx_bpf, SkeletonDeleter>;

// The bytes of the read-only variable `name` where the object's own BTF
// places it in the .rodata image libbpf loads: independent of the layout of
// the skeleton's generated struct.
template <typename T>
std::optional<T> rodata_variable(netif_rx_bpf* skeleton, const char* name) {
  std::size_t size = 0;
  const auto* image =
      static_cast<const unsigned char*>(bpf_map__initial_value(skeleton->maps.rodata, &size));
  const btf* types = bpf_object__btf(skeleton->obj);
  if (image == nullptr || types == nullptr) return std::nullopt;
  const int section_id = btf__find_by_name_kind(types, ".rodata", BTF_KIND_DATASEC);
  if (section_id < 0) return std::nullopt;
  const btf_type* section = btf__type_by_id(types, static_cast<__u32>(section_id));
  const btf_var_secinfo* variables = btf_var_secinfos(section);
  for (int i = 0; i < btf_vlen(section); ++i) {
    const btf_type* variable = btf__type_by_id(types, variables[i].type);
    if (std::strcmp(btf__name_by_offset(types, variable->name_off), name) != 0) continue;
    if (variables[i].size != sizeof(T) || variables[i].offset + sizeof(T) > size) break;
    T value;
    std::memcpy(&value, image + variables[i].offset, sizeof(T));
    return value;
  }
  return std::nullopt;
}

class OpenedSkeleton : public ::testing::Test {
 protected:
  void SetUp() override {
    skeleton_.reset(netif_rx_bpf::open());
    ASSERT_NE(skeleton_, nullptr) << "opening the skeleton failed: " << std::strerror(errno);
  }

  Skeleton skeleton_;
};

TEST_F(OpenedSkeleton, HasTheTpBtfProgram) {
  const bpf_program* program = skeleton_->progs.netif_rx_btf;
  ASSERT_NE(program, nullptr);
  EXPECT_STREQ(bpf_program__name(program), "netif_rx_btf");
  EXPECT_EQ(bpf_program__type(program), BPF_PROG_TYPE_TRACING);
  EXPECT_EQ(bpf_program__expected_attach_type(program), BPF_TRACE_RAW_TP);
  EXPECT_STREQ(bpf_program__section_name(program), "tp_btf/netif_receive_skb");
}

TEST_F(OpenedSkeleton, HasTheTracepointTwin) {
  const bpf_program* program = skeleton_->progs.netif_rx_tp;
  ASSERT_NE(program, nullptr);
  EXPECT_STREQ(bpf_program__name(program), "netif_rx_tp");
  EXPECT_EQ(bpf_program__type(program), BPF_PROG_TYPE_TRACEPOINT);
  EXPECT_STREQ(bpf_program__section_name(program), "tracepoint/net/netif_receive_skb");
}

// Only the two twins: anything else would be loaded and attached too.
TEST_F(OpenedSkeleton, HasNoOtherProgram) {
  std::set<std::string> names;
  bpf_program* program = nullptr;
  bpf_object__for_each_program(program, skeleton_->obj) names.insert(bpf_program__name(program));
  EXPECT_EQ(names, (std::set<std::string>{"netif_rx_btf", "netif_rx_tp"}));
}

TEST_F(OpenedSkeleton, DeviceCountersMatchTheSharedHeader) {
  const bpf_map* map = skeleton_->maps.device_counters;
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(bpf_map__type(map), BPF_MAP_TYPE_PERCPU_HASH);
  EXPECT_EQ(bpf_map__key_size(map), sizeof(netif_rx_device_key));
  EXPECT_EQ(bpf_map__value_size(map), sizeof(netif_rx_counters));
  EXPECT_EQ(bpf_map__max_entries(map), static_cast<__u32>(NETIF_RX_DEFAULT_MAX_DEVICES));
}

TEST_F(OpenedSkeleton, DeviceNamesMatchTheSharedHeader) {
  const bpf_map* map = skeleton_->maps.device_names;
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(bpf_map__type(map), BPF_MAP_TYPE_HASH);
  EXPECT_EQ(bpf_map__key_size(map), sizeof(netif_rx_device_key));
  EXPECT_EQ(bpf_map__value_size(map), sizeof(netif_rx_device_name));
  EXPECT_EQ(bpf_map__value_size(map), 16U);
  EXPECT_EQ(bpf_map__max_entries(map), static_cast<__u32>(NETIF_RX_DEFAULT_MAX_DEVICES));
}

// Every slot the daemon reads (MapReader::read_untracked, read_counted,
// read_gso_fallbacks) is a
// key of the array the object declares, sized by the shared header.
TEST_F(OpenedSkeleton, ProbeTotalsHoldsEverySlotTheDaemonReads) {
  const bpf_map* map = skeleton_->maps.probe_totals;
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(bpf_map__type(map), BPF_MAP_TYPE_PERCPU_ARRAY);
  EXPECT_EQ(bpf_map__key_size(map), sizeof(__u32));
  EXPECT_EQ(bpf_map__value_size(map), sizeof(netif_rx_counters));
  EXPECT_EQ(bpf_map__max_entries(map), static_cast<__u32>(NETIF_RX_PROBE_TOTALS_SLOTS));
  for (const __u32 slot : std::initializer_list<__u32>{
           NETIF_RX_SLOT_UNTRACKED, NETIF_RX_SLOT_COUNTED, NETIF_RX_SLOT_FALLBACK_GSO_BY_FRAGS,
           NETIF_RX_SLOT_FALLBACK_UNPARSED, NETIF_RX_SLOT_FALLBACK_HEADERS}) {
    EXPECT_LT(slot, bpf_map__max_entries(map)) << "slot " << slot;
  }
}

// The carried maps hold what the counting maps held (continuity/carried_counts.h),
// keyed and valued alike; the hash takes memory only after a layout change.
TEST_F(OpenedSkeleton, CarriedMapsAreShapedAsTheCountingMaps) {
  const bpf_map* devices = skeleton_->maps.carried_counters;
  ASSERT_NE(devices, nullptr);
  EXPECT_EQ(bpf_map__type(devices), BPF_MAP_TYPE_PERCPU_HASH);
  EXPECT_EQ(bpf_map__key_size(devices), sizeof(netif_rx_device_key));
  EXPECT_EQ(bpf_map__value_size(devices), sizeof(netif_rx_counters));
  EXPECT_NE(bpf_map__map_flags(devices) & BPF_F_NO_PREALLOC, 0U);
  const bpf_map* totals = skeleton_->maps.carried_totals;
  ASSERT_NE(totals, nullptr);
  EXPECT_EQ(bpf_map__type(totals), BPF_MAP_TYPE_PERCPU_ARRAY);
  EXPECT_EQ(bpf_map__value_size(totals), sizeof(netif_rx_counters));
  EXPECT_EQ(bpf_map__max_entries(totals), static_cast<__u32>(NETIF_RX_PROBE_TOTALS_SLOTS));
}

// The queue and steering maps the route reader reads (routes/route_reader.h),
// shaped as the shared header says.
TEST_F(OpenedSkeleton, QueueAndSteeringMapsAreShapedAsTheReaderReadsThem) {
  const bpf_map* slots = skeleton_->maps.queue_slots;
  ASSERT_NE(slots, nullptr);
  EXPECT_EQ(bpf_map__type(slots), BPF_MAP_TYPE_ARRAY);  // one CPU's slot zeroed alone
  EXPECT_EQ(bpf_map__value_size(slots), sizeof(netif_rx_queue_slot));
  for (const auto& [map, key] :
       {std::pair{skeleton_->maps.queue_counters, sizeof(netif_rx_queue_key)},
        std::pair{skeleton_->maps.steer_counters, sizeof(netif_rx_steer_key)}}) {
    ASSERT_NE(map, nullptr);
    EXPECT_EQ(bpf_map__type(map), BPF_MAP_TYPE_PERCPU_HASH);
    EXPECT_EQ(bpf_map__key_size(map), key);
    EXPECT_EQ(bpf_map__value_size(map), sizeof(std::uint64_t));
  }
  EXPECT_EQ(bpf_map__max_entries(skeleton_->maps.queue_counters),
            static_cast<__u32>(NETIF_RX_MAX_QUEUE_ENTRIES));
  EXPECT_EQ(bpf_map__max_entries(skeleton_->maps.steer_counters),
            static_cast<__u32>(NETIF_RX_MAX_STEER_ENTRIES));
  const bpf_map* totals = skeleton_->maps.route_totals;
  ASSERT_NE(totals, nullptr);
  EXPECT_EQ(bpf_map__type(totals), BPF_MAP_TYPE_PERCPU_ARRAY);
  EXPECT_EQ(bpf_map__max_entries(totals), static_cast<__u32>(NETIF_RX_ROUTE_TOTALS_SLOTS));
}

// The control map's definition never changes (bpf/netif_rx.h): every layout's
// exporter must find it the same. The object declares it as the one variable
// of its section, so that the program reads the entry in place: an array of
// one entry that the daemon replaces by the map it keeps or creates.
TEST_F(OpenedSkeleton, ControlMapMatchesTheSharedHeader) {
  const bpf_map* map = skeleton_->maps.data_control;
  ASSERT_NE(map, nullptr);
  EXPECT_STREQ(bpf_map__name(map), ".data.control");
  EXPECT_TRUE(is_control_map_name(bpf_map__name(map)));  // the daemon finds it, and pins it apart
  ASSERT_NE(skeleton_->data_control, nullptr);
  EXPECT_EQ(sizeof(skeleton_->data_control->probe_control), sizeof(netif_rx_control));
  EXPECT_EQ(bpf_map__type(map), BPF_MAP_TYPE_ARRAY);
  EXPECT_EQ(bpf_map__key_size(map), sizeof(__u32));
  EXPECT_EQ(bpf_map__value_size(map), sizeof(netif_rx_control));
  EXPECT_EQ(bpf_map__value_size(map), 16U);
  EXPECT_EQ(bpf_map__max_entries(map), 1U);
  ASSERT_NE(skeleton_->rodata, nullptr);
  EXPECT_EQ(skeleton_->rodata->generation, 0U);  // no program counts until the daemon says
}

// What the daemon does between open and load (see Probe::load).
TEST_F(OpenedSkeleton, CanBeConfiguredBeforeLoad) {
  ASSERT_NE(skeleton_->rodata, nullptr);
  EXPECT_EQ(skeleton_->rodata->host_netns_inum, 0U);
  EXPECT_FALSE(skeleton_->rodata->count_all_namespaces);
  skeleton_->rodata->host_netns_inum = 4026531840U;
  skeleton_->rodata->count_all_namespaces = true;
  // What the kernel will be given: the values, where the object's BTF says.
  EXPECT_EQ(rodata_variable<__u32>(skeleton_.get(), "host_netns_inum"), 4026531840U);
  EXPECT_EQ(rodata_variable<bool>(skeleton_.get(), "count_all_namespaces"), true);

  for (bpf_map* map : {skeleton_->maps.device_counters, skeleton_->maps.device_names}) {
    EXPECT_EQ(bpf_map__set_max_entries(map, 1U << 20), 0) << bpf_map__name(map);
    EXPECT_EQ(bpf_map__max_entries(map), 1U << 20) << bpf_map__name(map);
  }

  EXPECT_EQ(bpf_program__set_autoload(skeleton_->progs.netif_rx_btf, false), 0);
  EXPECT_FALSE(bpf_program__autoload(skeleton_->progs.netif_rx_btf));
  EXPECT_TRUE(bpf_program__autoload(skeleton_->progs.netif_rx_tp));
}

TEST(Skeleton, OpensAndDestroysRepeatedly) {
  for (int i = 0; i < 3; ++i) {
    Skeleton skeleton(netif_rx_bpf::open());
    ASSERT_NE(skeleton, nullptr);
  }
}

}  // namespace
}  // namespace netif_rx
