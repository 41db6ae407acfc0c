#include "devices/label_value.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <set>
#include <vector>

#include "metrics/exposition.h"
#include "util/utf8.h"

namespace netif_rx {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// What each of `bytes` (none of them part of valid UTF-8) becomes.
std::string replaced(std::string_view bytes) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    out += kReplacement;
    out += kHex[byte >> 4];
    out += kHex[byte & 0xF];
  }
  return out;
}

TEST(LabelValue, KeepsValidUtf8) {
  for (const std::string& text : {
           std::string(""), std::string("eth0"), std::string("veth1a2b@if3"),
           std::string("wlan-\xC3\xA9"),             // U+00E9, two bytes
           std::string("\xE7\xBD\x91\xE5\x8D\xA1"),  // two 3-byte characters
           std::string("\xF0\x9F\x98\x80"),          // U+1F600, four bytes
           std::string("\xC2\x80"),                  // U+0080, the smallest 2-byte
           std::string("\xDF\xBF"),                  // U+07FF
           std::string("\xE0\xA0\x80"),              // U+0800, the smallest 3-byte
           std::string("\xED\x9F\xBF"),              // U+D7FF, just below surrogates
           std::string("\xEE\x80\x80"),              // U+E000, just above them
           std::string("\xEF\xBF\xBF"),              // U+FFFF
           std::string("\xEF\xBF\xBC"),              // U+FFFC, just below U+FFFD
           std::string("\xF0\x90\x80\x80"),          // U+10000, the smallest 4-byte
           std::string("\xF4\x8F\xBF\xBF"),          // U+10FFFF, the largest
           std::string("a\"b\\c\nd"),                // left to the serializer
           std::string("nul\0inside", 10),           // U+0000 is valid UTF-8
       }) {
    EXPECT_EQ(to_label_value(text), text);
  }
}

TEST(LabelValue, ReplacesInvalidBytes) {
  EXPECT_EQ(to_label_value("\xFF"), kReplacement + "ff");
  EXPECT_EQ(to_label_value("\xFE"), kReplacement + "fe");
  EXPECT_EQ(to_label_value("eth\xFF"
                           "0"),
            "eth" + kReplacement + "ff0");
  EXPECT_EQ(to_label_value("\x80"), kReplacement + "80");  // lone continuation byte
  EXPECT_EQ(to_label_value("\xBF\x80"), replaced("\xBF\x80"));
  EXPECT_EQ(to_label_value("\xF5\x80\x80\x80"),
            replaced("\xF5\x80\x80\x80"));  // lead byte beyond U+10FFFF
}

TEST(LabelValue, ReplacesTruncatedSequences) {
  EXPECT_EQ(to_label_value("\xC3"), kReplacement + "c3");
  EXPECT_EQ(to_label_value("a\xC3"), "a" + kReplacement + "c3");
  EXPECT_EQ(to_label_value("\xE2\x82"), replaced("\xE2\x82"));
  EXPECT_EQ(to_label_value("\xE2\x82x"), replaced("\xE2\x82") + "x");
  EXPECT_EQ(to_label_value("\xF0\x9F\x98"), replaced("\xF0\x9F\x98"));
  // A truncated sequence followed by a valid one keeps the valid one.
  EXPECT_EQ(to_label_value("\xE2\x82\xC3\xA9"), replaced("\xE2\x82") + "\xC3\xA9");
}

TEST(LabelValue, ReplacesOverlongEncodings) {
  EXPECT_EQ(to_label_value("\xC0\x80"), replaced("\xC0\x80"));                  // NUL
  EXPECT_EQ(to_label_value("\xC1\xBF"), replaced("\xC1\xBF"));                  // U+007F
  EXPECT_EQ(to_label_value("\xE0\x80\x80"), replaced("\xE0\x80\x80"));          // NUL
  EXPECT_EQ(to_label_value("\xE0\x9F\xBF"), replaced("\xE0\x9F\xBF"));          // U+07FF
  EXPECT_EQ(to_label_value("\xF0\x80\x80\x80"), replaced("\xF0\x80\x80\x80"));  // NUL
  EXPECT_EQ(to_label_value("\xF0\x8F\xBF\xBF"), replaced("\xF0\x8F\xBF\xBF"));  // U+FFFF
}

TEST(LabelValue, ReplacesSurrogates) {
  EXPECT_EQ(to_label_value("\xED\xA0\x80"), replaced("\xED\xA0\x80"));  // U+D800
  EXPECT_EQ(to_label_value("\xED\xBF\xBF"), replaced("\xED\xBF\xBF"));  // U+DFFF
  // A CESU-8 pair (U+1F600 as two surrogates).
  EXPECT_EQ(to_label_value("\xED\xA0\xBD\xED\xB8\x80"), replaced("\xED\xA0\xBD\xED\xB8\x80"));
}

TEST(LabelValue, ReplacesCodePointsAboveTheLast) {
  EXPECT_EQ(to_label_value("\xF4\x90\x80\x80"), replaced("\xF4\x90\x80\x80"));  // U+110000
}

// A U+FFFD of the name itself is marked apart from a replaced byte.
TEST(LabelValue, MarksTheReplacementCharacterOfTheName) {
  EXPECT_EQ(to_label_value(kReplacement), kReplacement + "u");
  EXPECT_EQ(to_label_value(kReplacement + "ff"), kReplacement + "uff");
  EXPECT_NE(to_label_value(kReplacement + "ff"), to_label_value("\xFF"));
}

// One-to-one: names that differ give label values that differ (the bytes
// that are not UTF-8 among them).
TEST(LabelValue, TwoNamesNeverShareALabelValue) {
  std::set<std::string> labels;
  std::set<std::string> names;
  const std::vector<std::string> pieces = {
      "",   "a", "f", "u", "\xFF", "\xFE", "\xC3", "\xA9", "\xC3\xA9", std::string(kReplacement),
      "ff", "fe"};
  for (const auto& a : pieces) {
    for (const auto& b : pieces) {
      for (const auto& c : pieces) {
        const std::string name = a + b + c;
        if (names.insert(name).second) labels.insert(to_label_value(name));
      }
    }
  }
  EXPECT_EQ(labels.size(), names.size());
}

bool valid_utf8(std::string_view text) {
  while (!text.empty()) {
    const std::size_t length = utf8_sequence_length(text);
    if (length == 0) return false;
    text.remove_prefix(length);
  }
  return true;
}

// Whatever the input, the output is valid UTF-8.
TEST(LabelValue, OutputIsAlwaysValid) {
  std::string text(3, '\0');
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      for (int c : {0x00, 0x41, 0x80, 0x9F, 0xA0, 0xBF, 0xC0, 0xE0, 0xF0, 0xFF}) {
        text[0] = static_cast<char>(a);
        text[1] = static_cast<char>(b);
        text[2] = static_cast<char>(c);
        const std::string once = to_label_value(text);
        ASSERT_TRUE(valid_utf8(once)) << a << " " << b << " " << c;
      }
    }
  }
}

std::string exposition_with_device(const std::string& raw_name) {
  Snapshot snapshot;
  snapshot.cpus = {0};
  snapshot.devices.push_back(DeviceSeries{{1, 2, 0}, to_label_value(raw_name), {{1, 0, 100}}});
  snapshot.untracked_per_cpu = {{0, 0, 0}};
  return prometheus::TextSerializer().Serialize(render_snapshot(snapshot, {}));
}

TEST(LabelValue, SerializerEscapesQuoteBackslashAndNewline) {
  const std::string text = exposition_with_device("a\"b\\c\nd");
  EXPECT_NE(text.find("netif_rx_packets_total{device=\"a\\\"b\\\\c\\nd\"} 1\n"), std::string::npos)
      << text;
}

TEST(LabelValue, ExpositionOfAnInvalidNameIsValidUtf8) {
  const std::string text = exposition_with_device("bad\xFF\xC3\"\n");
  EXPECT_TRUE(valid_utf8(text));
  EXPECT_NE(
      text.find("netif_rx_packets_total{device=\"bad" + replaced("\xFF\xC3") + "\\\"\\n\"} 1\n"),
      std::string::npos)
      << text;
}

}  // namespace
}  // namespace netif_rx
