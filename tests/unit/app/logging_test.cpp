#include "app/logging.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

constexpr const char* kTs = "2024-05-06T07:08:09.123Z";

std::string logfmt(std::string_view message, std::string_view level = "info") {
  return format_log_line(LogFormat::logfmt, kTs, level, message);
}

std::string json(std::string_view message, std::string_view level = "info") {
  return format_log_line(LogFormat::json, kTs, level, message);
}

TEST(Logging, Logfmt) {
  EXPECT_EQ(logfmt("listening on :19100"),
            "ts=2024-05-06T07:08:09.123Z level=info msg=\"listening on :19100\"\n");
  EXPECT_EQ(logfmt("probe attached", "warn"),
            "ts=2024-05-06T07:08:09.123Z level=warn msg=\"probe attached\"\n");
}

TEST(Logging, Json) {
  EXPECT_EQ(json("listening on :19100"),
            "{\"ts\":\"2024-05-06T07:08:09.123Z\",\"level\":\"info\",\"msg\":\"listening on "
            ":19100\"}\n");
  EXPECT_EQ(json("map full", "error"),
            "{\"ts\":\"2024-05-06T07:08:09.123Z\",\"level\":\"error\",\"msg\":\"map full\"}\n");
}

TEST(Logging, EmptyMessage) {
  EXPECT_EQ(logfmt(""), "ts=2024-05-06T07:08:09.123Z level=info msg=\"\"\n");
  EXPECT_EQ(json(""), "{\"ts\":\"2024-05-06T07:08:09.123Z\",\"level\":\"info\",\"msg\":\"\"}\n");
}

TEST(Logging, EscapesQuotesAndBackslashes) {
  EXPECT_EQ(logfmt("device \"eth0\" at C:\\x"),
            "ts=2024-05-06T07:08:09.123Z level=info msg=\"device \\\"eth0\\\" at C:\\\\x\"\n");
  EXPECT_EQ(json("device \"eth0\" at C:\\x"),
            "{\"ts\":\"2024-05-06T07:08:09.123Z\",\"level\":\"info\",\"msg\":\"device "
            "\\\"eth0\\\" at C:\\\\x\"}\n");
}

TEST(Logging, EscapesNewlinesSoARecordIsOneLine) {
  EXPECT_EQ(logfmt("first\nsecond\r\tthird"),
            "ts=2024-05-06T07:08:09.123Z level=info msg=\"first\\nsecond\\r\\tthird\"\n");
  EXPECT_EQ(json("first\nsecond\r\tthird"),
            "{\"ts\":\"2024-05-06T07:08:09.123Z\",\"level\":\"info\",\"msg\":\"first\\nsecond\\r\\"
            "tthird\"}\n");
}

TEST(Logging, EscapesOtherControlCharacters) {
  const std::string message(
      "a\x01"
      "b\x1f"
      "c\0d\x1b[0m",
      11);
  EXPECT_EQ(json(message),
            "{\"ts\":\"2024-05-06T07:08:09.123Z\",\"level\":\"info\",\"msg\":\"a\\u0001b\\u001fc"
            "\\u0000d\\u001b[0m\"}\n");
  EXPECT_EQ(logfmt(message),
            "ts=2024-05-06T07:08:09.123Z level=info msg=\"a\\u0001b\\u001fc\\u0000d\\u001b[0m\"\n");
}

TEST(Logging, KeepsNonAsciiText) {
  EXPECT_EQ(logfmt("wlan-\xC3\xA9"),
            "ts=2024-05-06T07:08:09.123Z level=info msg=\"wlan-\xC3\xA9\"\n");
}

// libbpf's messages end with a newline: one record stays one line.
TEST(Logging, TrimsTrailingNewlinesAndSpaces) {
  EXPECT_EQ(logfmt("libbpf: map 'device_counters': created\n"),
            "ts=2024-05-06T07:08:09.123Z level=info msg=\"libbpf: map 'device_counters': "
            "created\"\n");
  EXPECT_EQ(json("done \n\n"),
            "{\"ts\":\"2024-05-06T07:08:09.123Z\",\"level\":\"info\",\"msg\":\"done\"}\n");
  EXPECT_EQ(logfmt("\n"), "ts=2024-05-06T07:08:09.123Z level=info msg=\"\"\n");
  // Only trailing ones: leading and inner whitespace are part of the message.
  EXPECT_EQ(logfmt("  indented\nnext"),
            "ts=2024-05-06T07:08:09.123Z level=info msg=\"  indented\\nnext\"\n");
}

TEST(Logging, EveryRecordIsExactlyOneLine) {
  for (const char* message : {"plain", "a\nb", "\n\n\n", "x\r\n", "\"\\\n"}) {
    for (LogFormat format : {LogFormat::logfmt, LogFormat::json}) {
      const std::string line = format_log_line(format, kTs, "debug", message);
      ASSERT_FALSE(line.empty());
      EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
    }
  }
}

}  // namespace
}  // namespace netif_rx
