#include "util/duration.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

using std::chrono::milliseconds;

TEST(Duration, ParsesPrometheusForms) {
  EXPECT_EQ(parse_duration("500ms"), milliseconds(500));
  EXPECT_EQ(parse_duration("1s"), milliseconds(1000));
  EXPECT_EQ(parse_duration("1m30s"), milliseconds(90000));
  EXPECT_EQ(parse_duration("2h"), milliseconds(7200000));
  EXPECT_EQ(parse_duration("1d"), milliseconds(86400000));
  EXPECT_EQ(parse_duration("1w"), milliseconds(604800000));
  EXPECT_EQ(parse_duration("1m500ms"), milliseconds(60500));
  EXPECT_EQ(parse_duration("0"), milliseconds(0));
  EXPECT_EQ(parse_duration("0s"), milliseconds(0));
}

TEST(Duration, RejectsWhatPrometheusRejects) {
  for (const char* text : {"", "1", "s", "1.5s", "-1s", "1S", "1s1m", "1s1s", "1x", "ms", " 1s",
                           "1s ", "99999999999999999999s"}) {
    EXPECT_EQ(parse_duration(text), std::nullopt) << text;
  }
}

TEST(Duration, FormatsLikePrometheus) {
  EXPECT_EQ(format_duration(milliseconds(0)), "0s");
  EXPECT_EQ(format_duration(milliseconds(500)), "500ms");
  EXPECT_EQ(format_duration(milliseconds(90000)), "1m30s");
  EXPECT_EQ(format_duration(milliseconds(3600000)), "1h");
  EXPECT_EQ(format_duration(milliseconds(1500)), "1s500ms");
}

}  // namespace
}  // namespace netif_rx
