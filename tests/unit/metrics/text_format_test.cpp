#include "metrics/text_format.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

TEST(TextFormat, EscapesBackslashQuoteAndNewlineOnly) {
  std::string out;
  append_label(out, "device", "a\\b\"c\nd\te\x01\xff");
  EXPECT_EQ(out, "device=\"a\\\\b\\\"c\\nd\te\x01\xff\"");
}

TEST(TextFormat, IntegersAreExact) {
  std::string out;
  for (std::uint64_t value : {0ULL, 45ULL, 9007199254740993ULL, 18446744073709551615ULL}) {
    append_integer(out, value);
    out += ' ';
  }
  EXPECT_EQ(out, "0 45 9007199254740993 18446744073709551615 ");
}

TEST(TextFormat, FamilyHeader) {
  std::string out = "x\n";
  append_family_header(out, "netif_rx_packets_total", "Packets.", "counter");
  EXPECT_EQ(out,
            "x\n# HELP netif_rx_packets_total Packets.\n# TYPE netif_rx_packets_total counter\n");
}

}  // namespace
}  // namespace netif_rx
