// Reload planning, process metrics parsing and the check report.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <fstream>
#include <set>
#include <string>

#include "app/check_report.h"
#include "config/config_reload.h"
#include "metrics/process_metrics.h"

namespace netif_rx {
namespace {

TEST(ConfigReload, LiveSettingsApplyOthersNeedARestart) {
  Config running;
  Config next;
  next.poll_interval = Milliseconds(500);
  next.per_cpu = {PerCpuDevices::none, {"eth.*"}};
  next.max_series = 500;
  next.max_devices = 10;
  next.namespaces = NamespaceMode::all;
  const ReloadPlan plan = plan_reload(running, next);
  EXPECT_EQ(plan.config.poll_interval, Milliseconds(500));
  EXPECT_EQ(plan.config.per_cpu, next.per_cpu);
  EXPECT_EQ(plan.config.max_series, 500u);
  EXPECT_EQ(plan.config.max_devices, running.max_devices);
  EXPECT_EQ(plan.config.namespaces, NamespaceMode::host);
  ASSERT_EQ(plan.needs_restart.size(), 2u);
  EXPECT_EQ(plan.needs_restart[0], "namespaces: host -> all needs a restart; keeping host");
  EXPECT_EQ(plan.needs_restart[1], "max_devices: 4096 -> 10 needs a restart; keeping 4096");
  EXPECT_TRUE(plan_reload(running, running).needs_restart.empty());

  Config live = running;
  live.devices.exclude = {"lo"};
  live.stale_after = Milliseconds(5000);
  live.bpf_stats.mode = BpfStatsMode::off;
  const ReloadPlan filters = plan_reload(running, live);
  EXPECT_EQ(filters.config.devices.exclude, std::vector<std::string>{"lo"});
  EXPECT_EQ(filters.config.stale_after, Milliseconds(5000));
  EXPECT_EQ(filters.config.bpf_stats.mode, BpfStatsMode::sampled);
  ASSERT_EQ(filters.needs_restart.size(), 1u);
  EXPECT_EQ(filters.needs_restart[0],
            "bpf_stats: sampled/1s/1m -> off/1s/1m needs a restart; keeping sampled/1s/1m");
}

TEST(ProcessMetrics, ParsesProcStat) {
  // A command with spaces and a parenthesis.
  const std::string text =
      "1234 (a b) c) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 5 0 98765 123456789 "
      "4321 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n";
  const auto stat = parse_proc_stat(text);
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->utime_ticks, 250u);
  EXPECT_EQ(stat->stime_ticks, 50u);
  EXPECT_EQ(stat->start_time_ticks, 98765u);
  EXPECT_EQ(stat->vsize_bytes, 123456789u);
  EXPECT_EQ(stat->rss_pages, 4321u);
  EXPECT_FALSE(parse_proc_stat("garbage"));
  EXPECT_FALSE(parse_proc_stat("1 (x) S 1 2"));
  EXPECT_EQ(parse_boot_time("cpu 1 2 3\nbtime 1700000000\nprocesses 5\n"), 1700000000u);
  EXPECT_FALSE(parse_boot_time("cpu 1 2 3\n"));
}

TEST(ProcessMetrics, ExportsTheStandardFamilies) {
  const auto families = ProcessCollector().Collect();
  std::vector<std::string> names;
  for (const auto& family : families) names.push_back(family.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "process_cpu_seconds_total", "process_resident_memory_bytes",
                       "process_virtual_memory_bytes", "process_start_time_seconds",
                       "process_open_fds", "process_max_fds", "process_virtual_memory_max_bytes"}));
  rlimit limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_AS, &limit), 0);
  EXPECT_EQ(families.back().metric.at(0).gauge.value, static_cast<double>(limit.rlim_cur));
}

// The metric contract's row of process metrics (docs/metrics.md) names
// exactly what the collector exports.
TEST(ProcessMetrics, TheContractListsExactlyTheExportedFamilies) {
  std::ifstream in(std::string(NETIF_RX_TEST_DATA_DIR) + "/../../../docs/metrics.md");
  ASSERT_TRUE(in) << "docs/metrics.md not found";
  std::string line;
  std::set<std::string> documented;
  while (std::getline(in, line)) {
    if (line.rfind("| `process_", 0) != 0) continue;
    const std::string names = line.substr(0, line.find(" | "));
    for (std::size_t start = names.find('`'); start != std::string::npos;
         start = names.find('`', names.find('`', start + 1) + 1)) {
      documented.insert(names.substr(start + 1, names.find('`', start + 1) - start - 1));
    }
  }
  std::set<std::string> exported;
  for (const auto& family : ProcessCollector().Collect()) exported.insert(family.name);
  EXPECT_EQ(documented, exported);
}

TEST(CheckReport, MarksEachRequirementAndExitsNonZeroOnABlockingFailure) {
  const std::vector<CheckResult> results{{true, true, "kernel 6.1 (5.10 or later needed)", ""},
                                         {false, false, "statistics", "grant CAP_SYS_ADMIN"}};
  EXPECT_EQ(format_check_report(results, false),
            "✓ kernel 6.1 (5.10 or later needed)\n"
            "✗ statistics (optional)\n"
            "    fix: grant CAP_SYS_ADMIN\n"
            "netif_rx_exporter can run on this machine\n");
  EXPECT_EQ(check_exit_code(results), 0);
  EXPECT_EQ(check_exit_code({{false, true, "BTF", "fix"}}), 1);
  EXPECT_TRUE(kernel_release_at_least("5.8.0", 5, 8));
  EXPECT_TRUE(kernel_release_at_least("6.1.0-18-amd64", 5, 8));
  EXPECT_FALSE(kernel_release_at_least("5.4.0", 5, 8));
  EXPECT_FALSE(kernel_release_at_least("4.19", 5, 8));
  EXPECT_FALSE(kernel_release_at_least("x", 5, 8));
}

}  // namespace
}  // namespace netif_rx
