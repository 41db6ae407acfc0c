#include "pipeline/drop_counting.h"

#include <cerrno>
#include <memory>
#include <optional>

#include "drops/drop_reader.h"
#include "drops/drop_series.h"
#include "drops/softnet_stat.h"
#include "pipeline/poll_observer.h"
#include "util/errno_text.h"
#include "util/log.h"
#include "util/read_file.h"

namespace netif_rx {

std::unique_ptr<DropProbe> attach_drop_counter(const Config& config, std::uint32_t host_netns_inum,
                                               const std::string& btf_path) {
  DropProbeOptions options;
  options.host_netns_inum = host_netns_inum;
  options.count_all_namespaces = config.namespaces == NamespaceMode::all;
  options.btf_path = btf_path;
  std::string why;
  std::unique_ptr<DropProbe> probe = DropProbe::load(options, why);
  if (!probe) {
    log::warn("receive drops are not counted: netif_rx_drops_total is left out", {{"why", why}});
  }
  return probe;
}

DropsSource drops_source(const DropProbe* probe, PollObserver& metrics, std::string softnet_path) {
  std::shared_ptr<DropReader> reader;
  if (probe) {
    reader = std::make_shared<DropReader>(
        std::make_unique<KernelBpfMap>("drop_counters", probe->drop_counters_fd()),
        std::make_unique<KernelBpfMap>("drop_device_names", probe->drop_device_names_fd()),
        std::make_unique<KernelBpfMap>("drop_totals", probe->drop_totals_fd()),
        probe->possible_cpus());
  }
  std::shared_ptr<SoftnetBacklogDrops> softnet;
  if (!probe || !probe->reasons().backlog) {
    softnet = std::make_shared<SoftnetBacklogDrops>();
    log::info("backlog drops per CPU from softnet_stat (no CPU_BACKLOG drop reason before 5.18)",
              {{"path", softnet_path}});
  }
  return [reader, softnet, probe, &metrics, path = std::move(softnet_path)](
             std::size_t budget, const DeviceExported& exported) {
    // softnet_stat first: its CPUs' series count against the budget too.
    std::size_t softnet_lines = 0;
    if (softnet) {
      if (const auto text = read_file(path)) {
        softnet->update(parse_softnet_stat(*text));
      } else {
        log::warn("reading softnet_stat failed", {{"path", path}, {"err", errno_text(errno)}});
        metrics.count_poll_error("map_read");
      }
      for (std::uint64_t dropped : softnet->per_cpu()) softnet_lines += dropped != 0 ? 1 : 0;
    }
    DropsSnapshot drops;
    if (reader) {
      const DropCounts counts = reader->read();
      for (const MapAccessError& error : counts.errors) {
        log::warn("reading the drop counter's maps failed", {{"err", error.describe()}});
        metrics.count_poll_error("map_read");
      }
      drops = build_drops_snapshot(counts, probe->reasons(),
                                   budget > softnet_lines ? budget - softnet_lines : 0, exported);
      drops.counter_entries = counts.entries.size();
      drops.name_entries = counts.names.size();
    }
    if (softnet) {
      drops.backlog = true;
      drops.backlog_per_cpu = softnet->per_cpu();
    }
    return drops;
  };
}

}  // namespace netif_rx
