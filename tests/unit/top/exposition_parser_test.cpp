#include "top/exposition_parser.h"

#include <gtest/gtest.h>

#include <cmath>

#include "error_text.h"

namespace netif_rx {
namespace {

std::string error_of(std::string_view text) {
  return test::error_text<ExpositionParseError>([&] { parse_exposition_text(text); });
}

TEST(ExpositionParser, SkipsCommentsAndBlankLines) {
  const auto samples = parse_exposition_text(
      "# HELP a_total A help text, with {braces} and \"quotes\".\n"
      "# TYPE a_total counter\n"
      "\n"
      "a_total 1\n"
      "# EOF\n");
  ASSERT_EQ(samples.size(), 1U);
  EXPECT_EQ(samples[0].name, "a_total");
  EXPECT_TRUE(samples[0].labels.empty());
  EXPECT_EQ(samples[0].value, 1);
}

TEST(ExpositionParser, LabelsAndValues) {
  const auto samples = parse_exposition_text(
      "netif_rx_packets_total{cpu=\"0\",device=\"eth0\",netns=\"4026531840\"} 123456789012345\n"
      "x{a=\"1\",} 1.5e+06\n"
      "y { a = \"1\" , b=\"2\" }   -2 1700000000000\r\n"
      "z{} +Inf\n");
  ASSERT_EQ(samples.size(), 4U);
  EXPECT_EQ(samples[0].labels, (std::map<std::string, std::string>{
                                   {"cpu", "0"}, {"device", "eth0"}, {"netns", "4026531840"}}));
  EXPECT_EQ(samples[0].value, 123456789012345.0);
  EXPECT_EQ(samples[1].labels, (std::map<std::string, std::string>{{"a", "1"}}));
  EXPECT_EQ(samples[1].value, 1.5e6);
  EXPECT_EQ(samples[2].name, "y");
  EXPECT_EQ(samples[2].labels, (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(samples[2].value, -2);
  EXPECT_TRUE(std::isinf(samples[3].value));
}

TEST(ExpositionParser, UnescapesLabelValues) {
  // The serializer escapes backslash, double quote and newline; a '}' or ','
  // inside the quotes is part of the value.
  const auto samples = parse_exposition_text(
      "m{device=\"we\\\"ird\\\\dev\",other=\"a,b}c\",nl=\"x\\ny\",odd=\"\\t\"} 7\n");
  ASSERT_EQ(samples.size(), 1U);
  EXPECT_EQ(samples[0].labels.at("device"), "we\"ird\\dev");
  EXPECT_EQ(samples[0].labels.at("other"), "a,b}c");
  EXPECT_EQ(samples[0].labels.at("nl"), "x\ny");
  EXPECT_EQ(samples[0].labels.at("odd"), "\\t");
}

TEST(ExpositionParser, KeepsUtf8) {
  const auto samples = parse_exposition_text("m{device=\"caf\xC3\xA9\xEF\xBF\xBD\"} 1\n");
  ASSERT_EQ(samples.size(), 1U);
  EXPECT_EQ(samples[0].labels.at("device"), "caf\xC3\xA9\xEF\xBF\xBD");
}

TEST(ExpositionParser, NamesTheBadLine) {
  EXPECT_EQ(error_of("a 1\nb{x=\"1\" 2\n"),
            "line 2: expected ',' or '}' after a label value: 'b{x=\"1\" 2'");
  EXPECT_EQ(error_of("a{x=\"1} 2\n"), "line 1: unterminated label value: 'a{x=\"1} 2'");
  EXPECT_EQ(error_of("a{x=1} 2\n"), "line 1: expected '\"' to open a label value: 'a{x=1} 2'");
  EXPECT_EQ(error_of("a{x=\"1\",x=\"2\"} 2\n"), "line 1: duplicate label: 'a{x=\"1\",x=\"2\"} 2'");
  EXPECT_EQ(error_of("a two\n"), "line 1: 'two' is not a sample value: 'a two'");
  EXPECT_EQ(error_of("a\n"), "line 1: expected a space before the value: 'a'");
  EXPECT_EQ(error_of("a 1 12x\n"), "line 1: '12x' is not a timestamp: 'a 1 12x'");
  EXPECT_EQ(error_of("<html>\n"), "line 1: expected a metric name: '<html>'");
}

}  // namespace
}  // namespace netif_rx
