#include "drops/drop_reasons.h"

#include <gtest/gtest.h>

#include "netif_rx.h"

namespace netif_rx {
namespace {

TEST(DropReasonTable, NamesComeWithoutThePrefixAtTheirValues) {
  // As 6.18 has them, and values shifted as another kernel's.
  const DropReasonTable table = drop_reason_table({{"SKB_NOT_DROPPED_YET", 0},
                                                   {"SKB_CONSUMED", 1},
                                                   {"SKB_DROP_REASON_NOT_SPECIFIED", 2},
                                                   {"SKB_DROP_REASON_NO_SOCKET", 3},
                                                   {"SKB_DROP_REASON_SOCKET_RCVBUFF", 6},
                                                   {"SKB_DROP_REASON_CPU_BACKLOG", 71},
                                                   {"SKB_DROP_REASON_QDISC_DROP", 64},
                                                   {"SKB_DROP_REASON_MAX", 128},
                                                   {"SKB_DROP_REASON_SUBSYS_MASK", 0xFFFF0000}});
  ASSERT_EQ(table.names.size(), std::size_t{NETIF_RX_DROP_REASONS});
  EXPECT_EQ(table.names[0], "");
  EXPECT_EQ(table.names[1], "");
  EXPECT_EQ(table.names[2], "NOT_SPECIFIED");
  EXPECT_EQ(table.names[3], "NO_SOCKET");
  EXPECT_EQ(table.names[6], "SOCKET_RCVBUFF");
  EXPECT_EQ(table.names[71], "CPU_BACKLOG");
  EXPECT_EQ(table.names[128], "");  // MAX is not a reason
  ASSERT_TRUE(table.backlog);
  EXPECT_EQ(*table.backlog, 71U);
  EXPECT_TRUE(table.counted[3]);
  EXPECT_TRUE(table.counted[71]);
  EXPECT_FALSE(table.counted[64]);  // the transmit path's
  EXPECT_FALSE(table.counted[0]);
  EXPECT_FALSE(table.counted[1]);
  EXPECT_FALSE(table.counted[128]);
}

TEST(DropReasonTable, AKernelBeforeCpuBacklogHasNoBacklogReason) {
  const DropReasonTable table =
      drop_reason_table({{"SKB_DROP_REASON_NOT_SPECIFIED", 2}, {"SKB_DROP_REASON_NO_SOCKET", 3}});
  EXPECT_FALSE(table.backlog);
  EXPECT_TRUE(table.counted[3]);
}

TEST(DropReasonTable, HostileEnumeratorsAreLeftOut) {
  const DropReasonTable table =
      drop_reason_table({{"SKB_DROP_REASON_", 5},
                         {"SKB_DROP_REASON_NEGATIVE", -1},
                         {"SKB_DROP_REASON_TOO_BIG", NETIF_RX_DROP_REASONS},
                         {"SKB_DROP_REASON_FIRST", 7},
                         {"SKB_DROP_REASON_ALIAS", 7},
                         {"OTHER_ENUM_VALUE", 8}});
  EXPECT_EQ(table.names[5], "");
  EXPECT_EQ(table.names[7], "FIRST");
  EXPECT_EQ(table.names[8], "");
  std::size_t counted = 0;
  for (bool each : table.counted) counted += each ? 1 : 0;
  EXPECT_EQ(counted, 1U);  // FIRST alone
  EXPECT_TRUE(table.counted[7]);
}

TEST(TransmitReasons, AreTheTransmitPathsAndAPurge) {
  for (const char* name :
       {"QDISC_DROP", "QDISC_OVERLIMIT", "NEIGH_FAILED", "TC_EGRESS", "DEV_READY", "FULL_RING",
        "IP_OUTNOROUTES", "FQ_FLOW_LIMIT", "CAKE_FLOOD", "QUEUE_PURGE", "RECURSION_LIMIT"}) {
    EXPECT_TRUE(is_transmit_reason(name)) << name;
  }
  for (const char* name : {"NO_SOCKET", "SOCKET_RCVBUFF", "CPU_BACKLOG", "XDP", "TC_INGRESS",
                           "NETFILTER_DROP", "UDP_CSUM", "IP_CSUM", "NOT_SPECIFIED", "OTHERHOST"}) {
    EXPECT_FALSE(is_transmit_reason(name)) << name;
  }
}

}  // namespace
}  // namespace netif_rx
