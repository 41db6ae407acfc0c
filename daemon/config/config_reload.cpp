#include "config/config_reload.h"

namespace netif_rx {
namespace {

template <typename T, typename Show>
void keep(const char* key, T& next, const T& running, Show show,
          std::vector<std::string>& needs_restart) {
  if (next == running) return;
  needs_restart.push_back(std::string(key) + ": " + show(running) + " -> " + show(next) +
                          " needs a restart; keeping " + show(running));
  next = running;
}

}  // namespace

ReloadPlan plan_reload(const Config& running, const Config& next) {
  ReloadPlan plan{next, {}};
  const auto text = [](auto value) { return std::string(to_string(value)); };
  keep("namespaces", plan.config.namespaces, running.namespaces, text, plan.needs_restart);
  keep(
      "max_devices", plan.config.max_devices, running.max_devices,
      [](std::uint32_t value) { return std::to_string(value); }, plan.needs_restart);
  keep(
      "netns_blocks", plan.config.netns_blocks, running.netns_blocks,
      [](std::uint32_t value) { return std::to_string(value); }, plan.needs_restart);
  keep(
      "netns_block_slots", plan.config.netns_block_slots, running.netns_block_slots,
      [](std::uint32_t value) { return std::to_string(value); }, plan.needs_restart);
  keep("attach", plan.config.attach, running.attach, text, plan.needs_restart);
  // Statistics are switched by a sampler that has no live setter yet.
  const auto stats = [](const BpfStatsConfig& c) {
    return std::string(to_string(c.mode)) + "/" + format_duration(c.window) + "/" +
           format_duration(c.period);
  };
  if (stats(plan.config.bpf_stats) != stats(running.bpf_stats)) {
    plan.needs_restart.push_back("bpf_stats: " + stats(running.bpf_stats) + " -> " +
                                 stats(plan.config.bpf_stats) + " needs a restart; keeping " +
                                 stats(running.bpf_stats));
    plan.config.bpf_stats = running.bpf_stats;
  }
  // The attribution's thread and its sources are set up at startup.
  if (!(plan.config.attribution == running.attribution)) {
    plan.needs_restart.push_back("attribution: changes need a restart; keeping the running ones");
    plan.config.attribution = running.attribution;
  }
  return plan;
}

}  // namespace netif_rx
