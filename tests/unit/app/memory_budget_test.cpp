#include "app/memory_budget.h"

#include <gtest/gtest.h>

#include "probe/map_memory.h"

namespace netif_rx {
namespace {

TEST(MemoryBudget, NoLimitNoProblem) {
  Config config;
  config.max_devices = 1048576;
  EXPECT_FALSE(memory_budget_problem(config, 128, std::nullopt).has_value());
}

// The chart's defaults (namespaces: all, max_devices 4096) fit its memory
// limit (256 MiB) at 192 CPUs, the largest nodes it is for.
TEST(MemoryBudget, TheChartsDefaultsFitItsLimitAt192Cpus) {
  Config config;
  config.namespaces = NamespaceMode::all;
  const MemoryNeed need = memory_need(config, 192);
  std::printf("chart defaults at 192 CPUs: maps %.1f MiB, in all %.1f MiB of 256\n",
              static_cast<double>(need.maps) / (1 << 20),
              static_cast<double>(need.total()) / (1 << 20));
  EXPECT_FALSE(memory_budget_problem(config, 192, CgroupMemoryLimit{256ULL << 20, "memory.max"})
                   .has_value());
}

TEST(MemoryBudget, TheLargestMaxDevicesIsRefusedWithTheFiguresInOneLine) {
  Config config;
  config.max_devices = 1048576;
  const auto problem = memory_budget_problem(
      config, 128, CgroupMemoryLimit{256ULL << 20, "/sys/fs/cgroup/memory.max"});
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->find('\n'), std::string::npos);
  EXPECT_NE(problem->find("256 MiB (/sys/fs/cgroup/memory.max)"), std::string::npos) << *problem;
  EXPECT_NE(problem->find("max_devices=1048576 at 128 possible CPUs"), std::string::npos)
      << *problem;
  EXPECT_NE(problem->find("resources.limits.memory"), std::string::npos) << *problem;
  // The figure it names is what it computed: maps plus the exporter.
  const MemoryNeed need = memory_need(config, 128);
  EXPECT_NE(problem->find("about " + std::to_string((need.total() + (1 << 20) - 1) >> 20) + " MiB"),
            std::string::npos)
      << *problem;
}

// Per-CPU values grow with the CPUs: the maps of 4096 devices at 2 CPUs and
// at 128, as the kernel accounts them (x86-64).
TEST(MapMemory, GrowsWithPossibleCpus) {
  CountingMapShape shape;
  shape.max_devices = 4096;
  shape.host_slots = 4096;
  const MapMemory two = counting_map_memory(shape, 2);
  const MapMemory many = counting_map_memory(shape, 128);
  EXPECT_LT(two.hash_layout, two.array_layout);
  EXPECT_EQ(two.array_layout, two.counting);  // no blocks
  EXPECT_GT(many.counting, 20 * two.counting / 2);
  EXPECT_GT(drop_map_memory(128), drop_map_memory(2));
  EXPECT_GT(napi_map_memory(128), napi_map_memory(2));
  EXPECT_GT(route_map_memory(128), route_map_memory(2));
}

}  // namespace
}  // namespace netif_rx
