#include "devices/device_filter.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

DeviceFilter filter(std::vector<std::string> include, std::vector<std::string> exclude) {
  return DeviceFilter(DeviceFilterConfig{std::move(include), std::move(exclude)});
}

TEST(DeviceFilter, EmptyExportsEverything) {
  const DeviceFilter none;
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(none.exported("eth0"));
  EXPECT_TRUE(none.exported("a\"b\\c"));
}

TEST(DeviceFilter, IncludeMatchesTheWholeName) {
  const DeviceFilter f = filter({"eth[0-9]+", "ens.*"}, {});
  EXPECT_TRUE(f.exported("eth0"));
  EXPECT_TRUE(f.exported("eth12"));
  EXPECT_TRUE(f.exported("ens5"));
  EXPECT_FALSE(f.exported("veth0"));   // eth0 is only a part of it
  EXPECT_FALSE(f.exported("eth0.1"));  // nor the whole of this
  EXPECT_FALSE(f.exported("lo"));
}

TEST(DeviceFilter, ExcludeAloneDropsOnlyItsMatches) {
  const DeviceFilter f = filter({}, {"lo", "veth.*"});
  EXPECT_FALSE(f.exported("lo"));
  EXPECT_FALSE(f.exported("veth1a2b"));
  EXPECT_TRUE(f.exported("eth0"));
  EXPECT_TRUE(f.exported("lo0"));  // whole-name match: "lo" is not "lo0"
}

TEST(DeviceFilter, ExcludeWinsOverInclude) {
  const DeviceFilter f = filter({"eth.*"}, {"eth1"});
  EXPECT_TRUE(f.exported("eth0"));
  EXPECT_FALSE(f.exported("eth1"));
  EXPECT_FALSE(f.exported("ens5"));
}

TEST(DeviceFilter, SpecialCharactersAreMatchedAsBytes) {
  const DeviceFilter f = filter({"a\"b\\\\.*"}, {});
  EXPECT_TRUE(f.exported("a\"b\\c"));
  EXPECT_FALSE(f.exported("ab"));
}

TEST(DeviceFilter, InvalidExpressionThrows) {
  EXPECT_THROW(filter({"eth["}, {}), std::regex_error);
}

TEST(CachedDeviceFilter, SameAnswersAndForgetsUnusedNames) {
  CachedDeviceFilter cached(filter({"eth.*"}, {"eth1"}));
  EXPECT_TRUE(cached.exported("eth0"));
  EXPECT_FALSE(cached.exported("eth1"));
  EXPECT_FALSE(cached.exported("lo"));
  cached.forget_unused();
  EXPECT_TRUE(cached.exported("eth0"));
  cached.forget_unused();
  cached.forget_unused();
  EXPECT_TRUE(cached.exported("eth0"));
  EXPECT_FALSE(cached.exported("eth1"));
}

}  // namespace
}  // namespace netif_rx
