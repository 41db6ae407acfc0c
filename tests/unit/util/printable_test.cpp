#include "util/printable.h"

#include <gtest/gtest.h>

#include "util/json_escape.h"

namespace netif_rx {
namespace {

std::string json(std::string_view text) {
  std::string out;
  append_json_escaped(out, text);
  return out;
}

TEST(Printable, EscapesControlsAndInvalidUtf8) {
  EXPECT_EQ(printable("eth0"), "eth0");
  EXPECT_EQ(printable("ev\x1b[2Jil"), "ev\\x1b[2Jil");
  EXPECT_EQ(printable("a\nb\x7f"), "a\\x0ab\\x7f");
  EXPECT_EQ(printable("back\\slash"), "back\\\\slash");
  EXPECT_EQ(printable("caf\xc3\xa9"), "caf\xc3\xa9");    // é stays
  EXPECT_EQ(printable("c1\xc2\x9b"), "c1\\xc2\\x9b");    // U+009B, CSI
  EXPECT_EQ(printable("bad\xff\xc3"), "bad\\xff\\xc3");  // not UTF-8
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");        // overlong '/'
}

TEST(JsonEscape, AlwaysValidJson) {
  EXPECT_EQ(json("ev\x1b[0m\"\\"), "ev\\u001b[0m\\\"\\\\");
  EXPECT_EQ(json("del\x7f"), "del\\u007f");
  EXPECT_EQ(json("c1\xc2\x9b"), "c1\\u009b");
  EXPECT_EQ(json("bad\xff"), "bad\\ufffd");
  EXPECT_EQ(json("caf\xc3\xa9"), "caf\xc3\xa9");
}

}  // namespace
}  // namespace netif_rx
