#include "top/top_terminal.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

TEST(TopTerminal, WidthFromTheTerminalThenColumnsThen80) {
  EXPECT_EQ(choose_width(132U, "100"), 132U);
  EXPECT_EQ(choose_width(0U, "100"), 100U);  // a pty that doesn't know its size
  EXPECT_EQ(choose_width(std::nullopt, "100"), 100U);
  EXPECT_EQ(choose_width(std::nullopt, nullptr), 80U);
  for (const char* bad : {"", "wide", "-5", "0", "80x"}) {
    EXPECT_EQ(choose_width(std::nullopt, bad), 80U) << bad;
  }
}

}  // namespace
}  // namespace netif_rx
