#include "metrics/bpf_exposition.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include "sys/privileges.h"

namespace netif_rx {
namespace {

BpfStatsSnapshot sample() {
  BpfStatsSnapshot stats;
  stats.valid = true;
  stats.stats_enabled = true;
  stats.programs.push_back(
      {"netif_rx_btf", 349, "fbe9dba14fed0f1a", AttachMode::tp_btf, 1500000000ULL, 30000000ULL, 2});
  stats.maps = {{"device_counters", 3, 4096}, {"device_names", 3, 4096}, {"probe_totals", 1, 1}};
  return stats;
}

TEST(BpfExpositionTest, RendersEveryFamilyExactly) {
  const std::string text = prometheus::TextSerializer().Serialize(render_bpf_stats(sample()));
  EXPECT_EQ(text,
            "# HELP netif_rx_bpf_run_time_seconds_total Time the kernel spent running the program "
            "while BPF statistics were enabled (bpf_prog_info.run_time_ns).\n"
            "# TYPE netif_rx_bpf_run_time_seconds_total counter\n"
            "netif_rx_bpf_run_time_seconds_total{program=\"netif_rx_btf\"} 1.5\n"
            "# HELP netif_rx_bpf_run_count_total Times the program ran while BPF statistics were "
            "enabled (bpf_prog_info.run_cnt).\n"
            "# TYPE netif_rx_bpf_run_count_total counter\n"
            "netif_rx_bpf_run_count_total{program=\"netif_rx_btf\"} 30000000\n"
            "# HELP netif_rx_bpf_recursion_misses_total Runs the kernel skipped because the "
            "program was already running on that CPU.\n"
            "# TYPE netif_rx_bpf_recursion_misses_total counter\n"
            "netif_rx_bpf_recursion_misses_total{program=\"netif_rx_btf\"} 2\n"
            "# HELP netif_rx_bpf_stats_enabled 1 while the kernel collects BPF run-time "
            "statistics, else 0.\n"
            "# TYPE netif_rx_bpf_stats_enabled gauge\n"
            "netif_rx_bpf_stats_enabled 1\n"
            "# HELP netif_rx_bpf_program_info Identity of a loaded program, as bpftool prog show "
            "prints it.\n"
            "# TYPE netif_rx_bpf_program_info gauge\n"
            "netif_rx_bpf_program_info{attach_type=\"tp_btf\",id=\"349\",program=\"netif_rx_btf\","
            "tag=\"fbe9dba14fed0f1a\"} 1\n"
            "# HELP netif_rx_bpf_map_entries Keys in the map now.\n"
            "# TYPE netif_rx_bpf_map_entries gauge\n"
            "netif_rx_bpf_map_entries{map=\"device_counters\"} 3\n"
            "netif_rx_bpf_map_entries{map=\"device_names\"} 3\n"
            "netif_rx_bpf_map_entries{map=\"probe_totals\"} 1\n"
            "# HELP netif_rx_bpf_map_max_entries Capacity of the map.\n"
            "# TYPE netif_rx_bpf_map_max_entries gauge\n"
            "netif_rx_bpf_map_max_entries{map=\"device_counters\"} 4096\n"
            "netif_rx_bpf_map_max_entries{map=\"device_names\"} 4096\n"
            "netif_rx_bpf_map_max_entries{map=\"probe_totals\"} 1\n");
}

TEST(BpfExpositionTest, NothingBeforeTheFirstPoll) {
  EXPECT_TRUE(render_bpf_stats(BpfStatsSnapshot{}).empty());
}

TEST(BpfExpositionTest, StatsDisabledRendersZero) {
  auto stats = sample();
  stats.stats_enabled = false;
  const std::string text = prometheus::TextSerializer().Serialize(render_bpf_stats(stats));
  EXPECT_NE(text.find("\nnetif_rx_bpf_stats_enabled 0\n"), std::string::npos);
}

TEST(DerivedCostTest, AverageRunTimeAndCpuShare) {
  BpfProgramStats before{"p", 1, "", AttachMode::tp_btf, 1000, 10, 0};
  BpfProgramStats after{"p", 1, "", AttachMode::tp_btf, 1000 + 64 * 1000000ULL, 10 + 1000000ULL, 0};
  const DerivedCost cost = derive_cost(before, after, 2.0);
  EXPECT_DOUBLE_EQ(cost.ns_per_run, 64.0);
  EXPECT_DOUBLE_EQ(cost.cpu_cores, 0.032);  // 64 ms of CPU over 2 s
}

TEST(DerivedCostTest, NoRunsGiveZeroNotNaN) {
  BpfProgramStats same{"p", 1, "", AttachMode::tp_btf, 500, 7, 0};
  const DerivedCost cost = derive_cost(same, same, 1.0);
  EXPECT_EQ(cost.ns_per_run, 0.0);
  EXPECT_EQ(cost.cpu_cores, 0.0);
}

TEST(CapabilitySetsTest, ParsesProcStatus) {
  const auto sets = parse_capability_sets(
      "Name:\tnetif_rx_stats\nCapInh:\t0000000000000000\nCapPrm:\t0000000000200000\n"
      "CapEff:\t0000000000200000\nCapBnd:\t0000000000200000\nCapAmb:\t0000000000000000\n"
      "NoNewPrivs:\t1\n");
  ASSERT_TRUE(sets);
  EXPECT_EQ(sets->inheritable, 0U);
  EXPECT_EQ(sets->permitted, 1ULL << 21);
  EXPECT_EQ(sets->effective, 1ULL << 21);
  EXPECT_EQ(sets->bounding, 1ULL << 21);
  EXPECT_EQ(sets->ambient, 0U);
  EXPECT_FALSE(parse_capability_sets("Name:\tx\n"));
}

TEST(CapabilitySetsTest, HoldsOnlyWantsTheMaskNothingInheritableAndNoNewPrivs) {
  const std::string dropped =
      "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n"
      "CapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\nNoNewPrivs:\t1\n";
  EXPECT_TRUE(holds_only(dropped, 0));
  EXPECT_FALSE(holds_only(dropped, 1ULL << 21));
  std::string without_no_new_privs = dropped;
  without_no_new_privs.replace(without_no_new_privs.find("NoNewPrivs:\t1"), 13, "NoNewPrivs:\t0");
  EXPECT_FALSE(holds_only(without_no_new_privs, 0));
  EXPECT_FALSE(holds_only("CapInh:\t0\nCapPrm:\t0\nCapEff:\t0\n", 0));  // no NoNewPrivs line
  EXPECT_FALSE(
      holds_only("CapInh:\t0000000000000000\nCapPrm:\t0000000000200000\nCapEff:\t0000000000000000\n"
                 "NoNewPrivs:\t1\n",
                 0));
  EXPECT_TRUE(
      holds_only("CapInh:\t0\nCapPrm:\t0000000000200000\nCapEff:\t0000000000200000\nCapAmb:\t0\n"
                 "NoNewPrivs:\t1\n",
                 1ULL << 21));
}

}  // namespace
}  // namespace netif_rx
