#include "pipeline/untracked_warning.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

using std::chrono::seconds;

TEST(UntrackedWarning, AtMostOncePerIntervalWithTheCountSinceTheLastOne) {
  UntrackedWarning warning(seconds(60));
  const UntrackedWarning::Clock::time_point t0{};
  EXPECT_EQ(warning.update(0, t0), std::nullopt);
  EXPECT_EQ(warning.update(10, t0 + seconds(1)), std::optional<std::uint64_t>(10));
  EXPECT_EQ(warning.update(25, t0 + seconds(2)), std::nullopt);
  EXPECT_EQ(warning.update(40, t0 + seconds(60)), std::nullopt);
  EXPECT_EQ(warning.update(45, t0 + seconds(61)), std::optional<std::uint64_t>(35));
  // Nothing new: no warning, however long it has been.
  EXPECT_EQ(warning.update(45, t0 + seconds(600)), std::nullopt);
  EXPECT_EQ(warning.update(46, t0 + seconds(601)), std::optional<std::uint64_t>(1));
}

}  // namespace
}  // namespace netif_rx
