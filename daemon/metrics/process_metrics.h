// The standard process metrics, named and typed as the official Prometheus
// client libraries export them, read from /proc/self at scrape time.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <cstdint>
#include <optional>
#include <string_view>

namespace netif_rx {

// The fields of /proc/<pid>/stat that the metrics need, in their units.
struct ProcStat {
  std::uint64_t utime_ticks = 0;
  std::uint64_t stime_ticks = 0;
  std::uint64_t start_time_ticks = 0;  // since boot
  std::uint64_t vsize_bytes = 0;
  std::uint64_t rss_pages = 0;
};

// Parses the text of /proc/<pid>/stat (the command may hold spaces and
// parentheses). nullopt when it is malformed.
std::optional<ProcStat> parse_proc_stat(std::string_view text);

// The btime line of /proc/stat: boot time in Unix seconds.
std::optional<std::uint64_t> parse_boot_time(std::string_view proc_stat_text);

class ProcessCollector final : public prometheus::Collectable {
 public:
  // Never throws: a family that can't be read is left out of the scrape.
  std::vector<prometheus::MetricFamily> Collect() const override;
};

}  // namespace netif_rx
