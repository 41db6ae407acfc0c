// The benchmark's order statistics: the figure of rounds measured in
// several attach orders weighs every order the same.
#include "stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace netif_rx::bench {
namespace {

TEST(SummarizeByOrder, IsTheMeanOfEachOrdersMedian) {
  // Two orders, rounds alternating: order 0 (10, 12, 11), order 1 (20, 22, 21).
  const Summary summary = summarize_by_order({10, 20, 12, 22, 11, 21}, 2);
  EXPECT_DOUBLE_EQ(summary.median, 16.0);
  EXPECT_DOUBLE_EQ(summary.p25, 11.0);
  EXPECT_DOUBLE_EQ(summary.p75, 21.0);
  EXPECT_EQ(summary.samples, 6);
}

TEST(SummarizeByOrder, AnOrderWithMoreRoundsWeighsNoMore) {
  // Order 0 has three rounds (5, 5, 5), order 1 two (9, 9): a median of all
  // rounds would be 5; each order weighs half.
  const Summary summary = summarize_by_order({5, 9, 5, 9, 5}, 2);
  EXPECT_DOUBLE_EQ(summary.median, 7.0);
}

TEST(SummarizeByOrder, AnOutlierMovesOnlyItsOrdersMedianNotTheFigure) {
  const Summary summary = summarize_by_order({10, 20, 10, 20, 500, 20}, 2);
  EXPECT_DOUBLE_EQ(summary.median, 15.0);
}

TEST(SummarizeByOrder, FewerRoundsThanOrdersUsesTheOrdersMeasured) {
  const Summary summary = summarize_by_order({4, 8}, 6);
  EXPECT_DOUBLE_EQ(summary.median, 6.0);
  EXPECT_DOUBLE_EQ(summary.p25, 4.0);
  EXPECT_DOUBLE_EQ(summary.p75, 8.0);
}

TEST(SummarizeByOrder, ARoundWithoutAValueKeepsTheLaterRoundsInTheirOrders) {
  const double none = std::nan("");
  // Order 0: 10, (none), 12; order 1: 20, 22, 21.
  const Summary summary = summarize_by_order({10, 20, none, 22, 12, 21}, 2);
  EXPECT_DOUBLE_EQ(summary.median, 16.0);
  EXPECT_EQ(summary.samples, 5);
}

TEST(SummarizeByOrder, NoRoundsOrNoOrdersIsEmpty) {
  EXPECT_EQ(summarize_by_order({}, 6).samples, 0);
  EXPECT_EQ(summarize_by_order({1, 2}, 0).samples, 0);
}

}  // namespace
}  // namespace netif_rx::bench
