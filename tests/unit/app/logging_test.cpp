#include "app/logging.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "util/log.h"

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

TEST(StructuredLogging, MessageAndFieldsAreSeparateKeysInBothFormats) {
  const std::string payload = log::encode_payload(
      "listening",
      {{"address", "127.0.0.1:19100"}, {"telemetry_path", "/metrics"}, {"tls", false}});
  const auto decoded = log::decode_payload(payload);
  EXPECT_EQ(
      format_log_record(LogFormat::logfmt, kTs, "info", "web/http_server.cpp:92", decoded.message,
                        decoded.fields),
      "ts=2024-05-06T07:08:09.123Z level=info source=web/http_server.cpp:92 msg=\"listening\" "
      "address=127.0.0.1:19100 telemetry_path=/metrics tls=false\n");
  EXPECT_EQ(format_log_record(LogFormat::json, kTs, "info", "web/http_server.cpp:92",
                              decoded.message, decoded.fields),
            "{\"ts\":\"2024-05-06T07:08:09.123Z\",\"level\":\"info\",\"source\":\"web/"
            "http_server.cpp:92\",\"msg\":\"listening\",\"address\":\"127.0.0.1:19100\","
            "\"telemetry_path\":\"/metrics\",\"tls\":false}\n");
}

TEST(StructuredLogging, NumbersStayNumbersInJsonAndDurationsReadLikePrometheus) {
  const std::string payload =
      log::encode_payload("ready", {{"pid", 42},
                                    {"max_devices", 4096U},
                                    {"share", 0.25},
                                    {"poll_interval", std::chrono::milliseconds(90000)},
                                    {"nan", std::nan("")}});
  const auto fields = log::decode_payload(payload).fields;
  EXPECT_EQ(format_log_record(LogFormat::json, kTs, "info", "", "ready", fields),
            "{\"ts\":\"2024-05-06T07:08:09.123Z\",\"level\":\"info\",\"msg\":\"ready\",\"pid\":42,"
            "\"max_devices\":4096,\"share\":0.25,\"poll_interval\":\"1m30s\",\"nan\":\"NaN\"}\n");
  EXPECT_EQ(format_log_record(LogFormat::logfmt, kTs, "info", "", "ready", fields),
            "ts=2024-05-06T07:08:09.123Z level=info msg=\"ready\" pid=42 max_devices=4096 "
            "share=0.25 poll_interval=1m30s nan=NaN\n");
}

TEST(StructuredLogging, LogfmtQuotesValuesOnlyWhenNeeded) {
  const std::string payload = log::encode_payload("x", {{"plain", "eth0"},
                                                        {"empty", ""},
                                                        {"space", "a b"},
                                                        {"equals", "a=b"},
                                                        {"quote", "say \"hi\""},
                                                        {"newline", "one\ntwo"}});
  const auto fields = log::decode_payload(payload).fields;
  EXPECT_EQ(format_log_record(LogFormat::logfmt, kTs, "warn", "", "x", fields),
            "ts=2024-05-06T07:08:09.123Z level=warn msg=\"x\" plain=eth0 empty=\"\" space=\"a b\" "
            "equals=\"a=b\" quote=\"say \\\"hi\\\"\" newline=\"one\\ntwo\"\n");
}

// A hostile value (a device name, an error text) cannot forge fields or break the line.
TEST(StructuredLogging, SeparatorsInTextsCannotForgeFields) {
  const std::string payload = log::encode_payload(
      "a\x1f"
      "sfake\x1e"
      "1",
      {{"device",
        "x\x1f"
        "sforged\x1e"
        "2\n"}});
  const auto decoded = log::decode_payload(payload);
  EXPECT_EQ(decoded.message, "a sfake 1");
  ASSERT_EQ(decoded.fields.size(), 1U);
  EXPECT_EQ(decoded.fields[0].key, "device");
  EXPECT_EQ(decoded.fields[0].value, "x sforged 2\n");
  const std::string line =
      format_log_record(LogFormat::logfmt, kTs, "info", "", decoded.message, decoded.fields);
  EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
}

TEST(StructuredLogging, PlainTextIsAllMessage) {
  const auto decoded = log::decode_payload("libbpf: loaded");
  EXPECT_EQ(decoded.message, "libbpf: loaded");
  EXPECT_TRUE(decoded.fields.empty());
}

TEST(StructuredLogging, SourceIsTheLastTwoPathComponents) {
  EXPECT_EQ(log_source("/home/builder/src/daemon/web/http_server.cpp", 92),
            "web/http_server.cpp:92");
  EXPECT_EQ(log_source("daemon/app/app.cpp", 7), "app/app.cpp:7");
  EXPECT_EQ(log_source("main.cpp", 3), "main.cpp:3");
}

// Through spdlog and the configured formatter, as the daemon logs: the source is this file.
TEST(StructuredLogging, ARecordThroughTheDefaultLoggerCarriesItsSource) {
  char path[] = "/tmp/netif-rx-log-test.XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  const int saved = ::dup(STDERR_FILENO);
  ::dup2(fd, STDERR_FILENO);
  setup_logging("info", LogFormat::json);
  const int line = __LINE__ + 1;
  log::info("probe attached", {{"program", "netif_rx_btf"}, {"max_devices", 4096}});
  log::debug("not shown at level info");
  spdlog::default_logger()->flush();
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  ::close(fd);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  ::unlink(path);
  const std::string out = text.str();
  EXPECT_NE(
      out.find("\"level\":\"info\",\"source\":\"app/logging_test.cpp:" + std::to_string(line) +
               "\",\"msg\":\"probe attached\",\"program\":\"netif_rx_btf\",\"max_devices\":"
               "4096}\n"),
      std::string::npos)
      << out;
  EXPECT_EQ(out.find("not shown"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

}  // namespace
}  // namespace netif_rx
