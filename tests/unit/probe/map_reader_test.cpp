#include "probe/map_reader.h"

#include <gtest/gtest.h>

#include <cstring>

#include "probe/fake_bpf_map.h"

namespace netif_rx {
namespace {

using test::FakeBpfMap;

constexpr unsigned kCpus = 3;

struct FakeMaps {
  std::shared_ptr<FakeBpfMap> counters = std::make_shared<FakeBpfMap>(
      "device_counters", sizeof(netif_rx_device_key), kCpus * sizeof(netif_rx_counters));
  std::shared_ptr<FakeBpfMap> names = std::make_shared<FakeBpfMap>(
      "device_names", sizeof(netif_rx_device_key), sizeof(netif_rx_device_name));
  std::shared_ptr<FakeBpfMap> untracked = std::make_shared<FakeBpfMap>(
      "probe_totals", sizeof(std::uint32_t), kCpus * sizeof(netif_rx_counters));

  MapReader reader() {
    return MapReader(
        ProbeMaps{counters, names, untracked, nullptr, 0, 0, nullptr, nullptr, 0, 1, 1}, kCpus);
  }

  void add_device(netif_rx_device_key key, std::uint64_t packets_on_cpu1) {
    std::vector<netif_rx_counters> values(kCpus);
    values[1].skbs = packets_on_cpu1;
    counters->put_array(key, values);
  }
  void add_name(netif_rx_device_key key, const char* name) {
    netif_rx_device_name value{};
    std::strncpy(value.name, name, sizeof value.name - 1);
    names->put(key, value);
  }
};

TEST(MapReader, ReadsEveryDeviceInBatchesOfAnySize) {
  FakeMaps maps;
  for (std::uint32_t i = 1; i <= 600; ++i) maps.add_device({7, i, 0}, i);
  maps.counters->batch_limit = 100;
  auto reader = maps.reader();
  const auto read = reader.read_device_counters();
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read.value.size(), 600u);
  for (const auto& device : read.value) {
    ASSERT_EQ(device.per_cpu.size(), kCpus);
    EXPECT_EQ(device.per_cpu[1].skbs, device.key.ifindex);
  }
}

TEST(MapReader, FallsBackToOneByOneWhenTheKernelHasNoBatches) {
  FakeMaps maps;
  maps.add_device({7, 1, 0}, 10);
  maps.add_device({7, 2, 0}, 20);
  maps.counters->batch_error = EINVAL;
  auto reader = maps.reader();
  EXPECT_EQ(reader.read_device_counters().value.size(), 2u);
  EXPECT_EQ(reader.read_device_counters().value.size(), 2u);
  EXPECT_EQ(maps.counters->batch_calls, 1);  // not tried again
}

TEST(MapReader, ABatchErrorNamesTheMapAndTheOperation) {
  FakeMaps maps;
  maps.add_device({7, 1, 0}, 10);
  auto reader = maps.reader();
  reader.read_device_counters();  // batches work
  maps.counters->batch_error = EPERM;
  const auto read = reader.read_device_counters();
  ASSERT_EQ(read.errors.size(), 1u);
  EXPECT_EQ(read.errors[0].describe(),
            "map device_counters: lookup_batch failed: " + std::string(std::strerror(EPERM)));
}

TEST(MapReader, ReadsNamesUpToTheirEnd) {
  FakeMaps maps;
  maps.add_name({7, 1, 0}, "eth0");
  maps.add_name({8, 1, 0}, "veth-a");
  auto reader = maps.reader();
  const auto read = reader.read_device_names();
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read.value.at({7, 1, 0}), "eth0");
  EXPECT_EQ(read.value.at({8, 1, 0}), "veth-a");
}

TEST(MapReader, LookupErrorsAreReportedPerMap) {
  FakeMaps maps;
  maps.add_name({7, 1, 0}, "eth0");
  maps.names->lookup_error = EACCES;
  maps.untracked->lookup_error = EACCES;
  auto reader = maps.reader();
  const auto names = reader.read_device_names();
  ASSERT_EQ(names.errors.size(), 1u);
  EXPECT_EQ(names.errors[0].map, "device_names");
  EXPECT_EQ(names.errors[0].operation, "lookup_elem");
  const auto untracked = reader.read_untracked();
  ASSERT_EQ(untracked.errors.size(), 1u);
  EXPECT_EQ(untracked.errors[0].map, "probe_totals");
}

TEST(MapReader, ReadsTheUntrackedCountersPerCpu) {
  FakeMaps maps;
  maps.untracked->put_array(std::uint32_t{0},
                            std::vector<netif_rx_counters>{{1, 0, 100}, {2, 0, 200}, {3, 0, 300}});
  auto reader = maps.reader();
  const auto read = reader.read_untracked();
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read.value.size(), kCpus);
  EXPECT_EQ(read.value[2].bytes, 300u);
}

// The counted total's bytes word is the probe's handover mark (an skb's
// address), never a count: it reads as 0.
TEST(MapReader, TheCountedTotalReadsWithoutTheHandoverMark) {
  FakeMaps maps;
  maps.untracked->put_array(std::uint32_t{NETIF_RX_SLOT_COUNTED},
                            std::vector<netif_rx_counters>{
                                {7, 1, 0xffff888012345600}, {8, 0, 0}, {9, 2, 0xffff888012345601}});
  auto reader = maps.reader();
  const auto read = reader.read_counted();
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read.value.size(), kCpus);
  EXPECT_EQ(read.value[0].skbs, 7u);
  EXPECT_EQ(read.value[2].merged_packets, 2u);
  for (const auto& cpu : read.value) EXPECT_EQ(cpu.bytes, 0u);
}

TEST(MapReader, ReadsEachFallbackSlotUnderItsReason) {
  FakeMaps maps;
  for (std::uint32_t slot = 0; slot < NETIF_RX_PROBE_TOTALS_SLOTS; ++slot) {
    maps.untracked->put_array(slot,
                              std::vector<netif_rx_counters>{{slot, 0, 0}, {0, 0, 0}, {0, 0, 0}});
  }
  auto reader = maps.reader();
  const auto read = reader.read_gso_fallbacks();
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read.value.size(), 3u);
  EXPECT_STREQ(read.value[0].reason, "gso_by_frags");
  EXPECT_EQ(read.value[0].skbs_per_cpu[0], NETIF_RX_SLOT_FALLBACK_GSO_BY_FRAGS);
  EXPECT_STREQ(read.value[1].reason, "unparsed_headers");
  EXPECT_EQ(read.value[1].skbs_per_cpu[0], NETIF_RX_SLOT_FALLBACK_UNPARSED);
  EXPECT_STREQ(read.value[2].reason, "headers_not_restored");
  EXPECT_EQ(read.value[2].skbs_per_cpu[0], NETIF_RX_SLOT_FALLBACK_HEADERS);
  ASSERT_EQ(read.value[2].skbs_per_cpu.size(), kCpus);
}

TEST(MapReader, DeletingADeviceRemovesItsNameAndCountersAndToleratesMissingEntries) {
  FakeMaps maps;
  maps.add_device({7, 1, 0}, 10);
  maps.add_name({7, 1, 0}, "eth0");
  auto reader = maps.reader();
  EXPECT_TRUE(reader.delete_device({7, 1, 0}).empty());
  EXPECT_FALSE(maps.counters->contains(netif_rx_device_key{7, 1, 0}));
  EXPECT_FALSE(maps.names->contains(netif_rx_device_key{7, 1, 0}));
  EXPECT_TRUE(reader.delete_device({7, 1, 0}).empty());  // already gone: fine
}

// A namespace that got a dead one's inode number: the same (netns, ifindex)
// under another salt is another entry, read, named and deleted on its own.
TEST(MapReader, EntriesThatDifferOnlyInTheirSaltAreTwoDevices) {
  FakeMaps maps;
  maps.add_device({7, 2, 0x1111}, 10);
  maps.add_device({7, 2, 0x2222}, 20);
  maps.add_name({7, 2, 0x1111}, "eth0");
  maps.add_name({7, 2, 0x2222}, "eth0");
  auto reader = maps.reader();
  ASSERT_EQ(reader.read_device_counters().value.size(), 2u);
  EXPECT_EQ(reader.read_device_names().value.size(), 2u);
  EXPECT_TRUE(reader.delete_device({7, 2, 0x1111}).empty());
  const auto left = reader.read_device_counters();
  ASSERT_EQ(left.value.size(), 1u);
  EXPECT_EQ(left.value[0].key, (netif_rx_device_key{7, 2, 0x2222}));
  EXPECT_EQ(left.value[0].per_cpu[1].skbs, 20u);
  EXPECT_TRUE(maps.names->contains(netif_rx_device_key{7, 2, 0x2222}));
}

TEST(MapReader, DeleteErrorsNameEachMap) {
  FakeMaps maps;
  maps.counters->remove_error = EPERM;
  maps.names->remove_error = EPERM;
  auto reader = maps.reader();
  const auto errors = reader.delete_device({7, 1, 0});
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].map, "device_names");
  EXPECT_EQ(errors[1].map, "device_counters");
  EXPECT_EQ(errors[1].operation, "delete_elem");
  EXPECT_EQ(reader.delete_name({7, 1, 0}).size(), 1u);
}

}  // namespace
}  // namespace netif_rx

namespace netif_rx {
namespace {

// The own namespace's per-CPU array by ifindex (namespace 7, slots 0-7).
struct FakeMapsWithArray : FakeMaps {
  std::shared_ptr<FakeBpfMap> host = std::make_shared<FakeBpfMap>(
      "host_counters", sizeof(std::uint32_t), kCpus * sizeof(netif_rx_counters));

  FakeMapsWithArray() {
    for (std::uint32_t slot = 0; slot < 8; ++slot)
      host->put_array(slot, std::vector<netif_rx_counters>(kCpus));
  }
  MapReader reader() {
    return MapReader(ProbeMaps{counters, names, untracked, host, 7, 8, nullptr, nullptr, 0, 1, 1},
                     kCpus);
  }
  void count_in_slot(std::uint32_t ifindex, std::uint64_t packets_on_cpu2) {
    std::vector<netif_rx_counters> values(kCpus);
    values[2] = {packets_on_cpu2, 0, 100 * packets_on_cpu2};
    host->put_array(ifindex, values);
  }
};

TEST(MapReaderHostArray, ReadsTheSlotsOfTheGivenIfindexesThatCounted) {
  FakeMapsWithArray maps;
  maps.count_in_slot(2, 5);
  maps.count_in_slot(3, 9);  // counted, but not asked for
  auto reader = maps.reader();
  // 4: a device that received nothing; 40: beyond the array (in the hash).
  const auto read = reader.read_host_slots({2, 4, 40});
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read.value.size(), 1u);
  EXPECT_EQ(read.value[0].key, (netif_rx_device_key{7, 2, 0}));
  ASSERT_EQ(read.value[0].per_cpu.size(), kCpus);
  EXPECT_EQ(read.value[0].per_cpu[2].skbs, 5u);
  EXPECT_EQ(read.value[0].per_cpu[2].bytes, 500u);
}

TEST(MapReaderHostArray, ADeletedDeviceOfTheArrayHasItsSlotZeroed) {
  FakeMapsWithArray maps;
  maps.count_in_slot(2, 5);
  auto reader = maps.reader();
  EXPECT_TRUE(reader.in_host_array({7, 2, 0}));
  EXPECT_TRUE(reader.delete_device({7, 2, 0}).empty());
  EXPECT_TRUE(reader.read_host_slots({2}).value.empty());
  EXPECT_EQ(maps.host->size(), 8u);  // still every slot
}

TEST(MapReaderHostArray, OtherNamespacesAndLargeIfindexesStayInTheHash) {
  FakeMapsWithArray maps;
  maps.add_device({7, 40, 0}, 1);
  maps.add_device({8, 2, 0}, 1);
  maps.count_in_slot(2, 5);
  auto reader = maps.reader();
  EXPECT_FALSE(reader.in_host_array({7, 40, 0}));
  EXPECT_FALSE(reader.in_host_array({8, 2, 0}));
  EXPECT_TRUE(reader.delete_device({7, 40, 0}).empty());
  EXPECT_TRUE(reader.delete_device({8, 2, 0}).empty());
  EXPECT_EQ(maps.counters->size(), 0u);
  EXPECT_EQ(reader.read_host_slots({2}).value.size(), 1u);  // untouched
}

// What the poller reads of a gone device before removing it: its slot's
// counts, none once zeroed (like a hash entry that is gone).
TEST(MapReaderHostArray, ReadsOneDeviceFromItsSlotAndNothingOnceZeroed) {
  FakeMapsWithArray maps;
  maps.count_in_slot(2, 5);
  auto reader = maps.reader();
  const auto before = reader.read_device({7, 2, 0});
  ASSERT_TRUE(before.ok());
  ASSERT_EQ(before.value.size(), kCpus);
  EXPECT_EQ(before.value[2].skbs, 5u);
  EXPECT_TRUE(reader.delete_device({7, 2, 0}).empty());
  const auto after = reader.read_device({7, 2, 0});
  EXPECT_TRUE(after.ok());
  EXPECT_TRUE(after.value.empty());
}

TEST(MapReaderHostArray, AFailedZeroingNamesTheArray) {
  FakeMapsWithArray maps;
  maps.host->update_error = EPERM;
  auto reader = maps.reader();
  const auto errors = reader.delete_device({7, 2, 0});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].describe(),
            "map host_counters: update_elem failed: " + std::string(std::strerror(EPERM)));
}

}  // namespace
}  // namespace netif_rx
