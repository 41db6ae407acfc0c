#include "devices/device_table.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <tuple>

namespace netif_rx {
namespace {

struct KeyLess {
  bool operator()(const netif_rx_device_key& a, const netif_rx_device_key& b) const {
    return std::tie(a.netns_inum, a.ifindex, a.netns_salt) <
           std::tie(b.netns_inum, b.ifindex, b.netns_salt);
  }
};

TEST(DeviceTable, FindsWhatWasAddedUntilItIsRemoved) {
  DeviceTable<int> table;
  const netif_rx_device_key a{1, 2, 0};
  const netif_rx_device_key b{1, 2, 7};  // another salt: another device
  const auto [id, added] = table.find_or_add(a, 10);
  EXPECT_TRUE(added);
  EXPECT_EQ(table[id], 10);
  EXPECT_EQ(table.find_or_add(a, 20), std::make_pair(id, false));
  EXPECT_EQ(table.find(b), DeviceTable<int>::kNone);
  table.find_or_add(b, 30);
  EXPECT_EQ(table.size(), 2U);
  EXPECT_TRUE(table.remove(a));
  EXPECT_FALSE(table.remove(a));
  EXPECT_EQ(table.find(a), DeviceTable<int>::kNone);
  EXPECT_EQ(table[table.find(b)], 30);
  EXPECT_EQ(table.size(), 1U);
}

TEST(DeviceTable, AGuessIsCheckedAgainstTheKey) {
  DeviceTable<int> table;
  const auto first = table.find_or_add({1, 1, 0}, 1).first;
  const auto second = table.find_or_add({1, 2, 0}, 2).first;
  EXPECT_EQ(table.find_or_add({1, 2, 0}, 0, first), std::make_pair(second, false));
  EXPECT_EQ(table.find_or_add({1, 2, 0}, 0, second), std::make_pair(second, false));
  table.remove({1, 2, 0});
  // The guess names a removed state: the key is added anew.
  EXPECT_TRUE(table.find_or_add({1, 2, 0}, 3, second).second);
  EXPECT_EQ(table.find_or_add({1, 9, 0}, 4, 12345).second, true);  // beyond the states
}

TEST(DeviceTable, RemoveIfKeepsTheRestReachable) {
  DeviceTable<std::uint32_t> table;
  for (std::uint32_t i = 0; i < 1000; ++i) table.find_or_add({7, i, 0}, i);
  table.remove_if([](std::uint32_t value) { return value % 3 == 0; });
  EXPECT_EQ(table.size(), 666U);
  for (std::uint32_t i = 0; i < 1000; ++i) {
    const auto id = table.find({7, i, 0});
    if (i % 3 == 0) {
      EXPECT_EQ(id, DeviceTable<std::uint32_t>::kNone) << i;
    } else {
      ASSERT_NE(id, DeviceTable<std::uint32_t>::kNone) << i;
      EXPECT_EQ(table[id], i);
    }
  }
}

TEST(DeviceTable, AgreesWithAMapUnderRandomChurn) {
  DeviceTable<std::uint64_t> table;
  std::map<netif_rx_device_key, std::uint64_t, KeyLess> expected;
  std::mt19937 random(42);
  for (std::uint64_t step = 0; step < 200000; ++step) {
    // Few namespaces and ifindexes: keys come back, probes collide.
    const netif_rx_device_key key{static_cast<std::uint32_t>(random() % 3),
                                  static_cast<std::uint32_t>(random() % 2000),
                                  static_cast<std::uint32_t>(random() % 2)};
    if (random() % 3 == 0) {
      EXPECT_EQ(table.remove(key), expected.erase(key) == 1);
    } else {
      const auto [id, added] = table.find_or_add(key, step);
      const auto [it, inserted] = expected.try_emplace(key, step);
      EXPECT_EQ(added, inserted);
      EXPECT_EQ(table[id], it->second);
    }
  }
  EXPECT_EQ(table.size(), expected.size());
  for (const auto& [key, value] : expected) {
    const auto id = table.find(key);
    ASSERT_NE(id, DeviceTable<std::uint64_t>::kNone);
    EXPECT_EQ(table[id], value);
  }
}

}  // namespace
}  // namespace netif_rx
