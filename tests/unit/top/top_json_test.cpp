#include "top/top_json.h"

#include <gtest/gtest.h>

namespace netif_rx {
namespace {

RateTable two_devices() {
  RateTable table;
  table.span_seconds = 2;
  table.cpus = {0, 1};
  table.devices.push_back(
      {{"eth0", ""},
       {3000, 390000},
       {{0, {1000, 130000}, {5000, 650000}}, {1, {2000, 260000}, {2000, 260000}}},
       {}});
  table.devices.push_back(
      {{"we\"ird\\dev\n", "4026532281"}, {0, 0}, {{0, {0, 0}, {7, 700}}, {1, {0, 0}, {0, 0}}}, {}});
  return table;
}

TEST(TopJson, DevicesCpusCountsRatesAndSpan) {
  EXPECT_EQ(
      render_json(two_devices(), "the probe"),
      "{\"source\":\"the probe\",\"span_seconds\":2,\"per_cpu\":true,\"devices\":["
      "{\"device\":\"eth0\",\"packets\":3000,\"bytes\":390000,\"packets_per_second\":1500,"
      "\"bytes_per_second\":195000,\"cpus\":["
      "{\"cpu\":0,\"packets\":1000,\"bytes\":130000,\"packets_per_second\":500,"
      "\"bytes_per_second\":65000,\"packets_total\":5000,\"bytes_total\":650000},"
      "{\"cpu\":1,\"packets\":2000,\"bytes\":260000,\"packets_per_second\":1000,"
      "\"bytes_per_second\":130000,\"packets_total\":2000,\"bytes_total\":260000}]},"
      "{\"device\":\"we\\\"ird\\\\dev\\n\",\"netns\":\"4026532281\",\"packets\":0,\"bytes\":0,"
      "\"packets_per_second\":0,\"bytes_per_second\":0,\"cpus\":["
      "{\"cpu\":0,\"packets\":0,\"bytes\":0,\"packets_per_second\":0,\"bytes_per_second\":0,"
      "\"packets_total\":7,\"bytes_total\":700},"
      "{\"cpu\":1,\"packets\":0,\"bytes\":0,\"packets_per_second\":0,\"bytes_per_second\":0,"
      "\"packets_total\":0,\"bytes_total\":0}]}]}\n");
}

TEST(TopJson, SummedOverCpusAndFractionalRates) {
  RateTable table;
  table.span_seconds = 3;
  table.per_cpu = false;
  table.devices.push_back({{"eth0", ""}, {10, 100}, {{std::nullopt, {10, 100}, {10, 100}}}, {}});
  EXPECT_EQ(render_json(table, "http://127.0.0.1:19100/metrics"),
            "{\"source\":\"http://127.0.0.1:19100/metrics\",\"span_seconds\":3,\"per_cpu\":false,"
            "\"devices\":[{\"device\":\"eth0\",\"packets\":10,\"bytes\":100,"
            "\"packets_per_second\":3.3333333333333335,\"bytes_per_second\":33.333333333333336,"
            "\"cpus\":[{\"cpu\":null,\"packets\":10,\"bytes\":100,"
            "\"packets_per_second\":3.3333333333333335,\"bytes_per_second\":33.333333333333336,"
            "\"packets_total\":10,\"bytes_total\":100}]}]}\n");
}

TEST(TopJson, EmptyTable) {
  EXPECT_EQ(render_json(RateTable{}, "the probe"),
            "{\"source\":\"the probe\",\"span_seconds\":0,\"per_cpu\":true,\"devices\":[]}\n");
}

TEST(TopJson, EscapesStrings) {
  EXPECT_EQ(json_string("a\"b\\c\n\t\x01\xC3\xA9"), "\"a\\\"b\\\\c\\n\\t\\u0001\xC3\xA9\"");
}

}  // namespace
}  // namespace netif_rx

namespace netif_rx {
namespace {

TEST(TopJsonDrops, ADevicesDropsByReason) {
  RateTable table;
  table.span_seconds = 1;
  table.per_cpu = false;
  table.devices.push_back({{"veth1", ""},
                           {10, 100},
                           {{std::nullopt, {10, 100}, {10, 100}}},
                           {{"NO_SOCKET", 4}, {"SOCKET_RCVBUFF", 1}}});
  const std::string json = render_json(table, "the probe");
  EXPECT_NE(json.find("\"bytes_per_second\":100,\"drops\":{\"NO_SOCKET\":4,\"SOCKET_RCVBUFF\":1},"
                      "\"drops_per_second\":{\"NO_SOCKET\":4,\"SOCKET_RCVBUFF\":1},\"cpus\":["),
            std::string::npos)
      << json;
}

TEST(TopJsonDrops, DropRatesAreOverTheSpan) {
  RateTable table;
  table.span_seconds = 2;
  table.devices.push_back({{"eth0", ""}, {}, {}, {{"NO_SOCKET", 5}}});
  const std::string json = render_json(table, "the probe");
  EXPECT_NE(json.find("\"drops_per_second\":{\"NO_SOCKET\":2.5}"), std::string::npos) << json;
}

TEST(TopJsonDevice, TheSelectedDevicesQueueMatrix) {
  RateTable table;
  table.span_seconds = 2;
  table.device = "eth0";
  table.drops_absent = "no drop counter";
  table.devices.push_back({{"eth0", ""}, {}, {}, {}});
  table.queue_matrices[{"eth0", ""}] = {{0, 1}, {0, 3}, {{10, 0}, {1, 7}}};
  const std::string json = render_json(table, "the probe");
  EXPECT_NE(json.find("\"per_cpu\":true,\"device\":\"eth0\",\"drops_absent\":\"no drop counter\","
                      "\"devices\":["),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"queues\":{\"cpus\":[0,3],\"rows\":["
                      "{\"queue\":0,\"packets\":[10,0],\"packets_per_second\":[5,0]},"
                      "{\"queue\":1,\"packets\":[1,7],\"packets_per_second\":[0.5,3.5]}]}"),
            std::string::npos)
      << json;
}

TEST(TopJsonDevice, SaysWhyTheSourceHasNoQueues) {
  RateTable table;
  table.device = "eth0";
  table.queues_absent = "top's own probe reads no RX queues";
  table.devices.push_back({{"eth0", ""}, {}, {}, {}});
  const std::string json = render_json(table, "the probe");
  EXPECT_NE(json.find("\"queues_absent\":\"top's own probe reads no RX queues\""),
            std::string::npos);
  EXPECT_EQ(json.find("\"queues\":"), std::string::npos) << json;
}

}  // namespace
}  // namespace netif_rx
