#include "metrics/process_metrics.h"

#include <dirent.h>
#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>
#include <prometheus/metric_type.h>
#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <vector>

#include "metrics/metric_family.h"
#include "util/read_file.h"

namespace netif_rx {
namespace {

std::optional<double> open_fds() {
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir("/proc/self/fd"), ::closedir);
  if (!dir) return std::nullopt;
  double count = 0;
  while (const dirent* entry = ::readdir(dir.get())) {
    if (entry->d_name[0] != '.') ++count;
  }
  return count - 1;  // the directory's own descriptor
}

}  // namespace

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
  const auto close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::vector<std::string_view> fields;  // fields[0] is field 3 (state)
  std::size_t pos = close + 1;
  while (pos < text.size()) {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n')) ++pos;
    const auto end = text.find_first_of(" \n", pos);
    const auto stop = end == std::string_view::npos ? text.size() : end;
    if (stop > pos) fields.push_back(text.substr(pos, stop - pos));
    pos = stop;
  }
  const auto field = [&](std::size_t number, std::uint64_t& out) {
    if (number < 3 || number - 3 >= fields.size()) return false;
    const auto value = fields[number - 3];
    return std::from_chars(value.data(), value.data() + value.size(), out).ec == std::errc{};
  };
  ProcStat stat;
  if (!field(14, stat.utime_ticks) || !field(15, stat.stime_ticks) ||
      !field(22, stat.start_time_ticks) || !field(23, stat.vsize_bytes) ||
      !field(24, stat.rss_pages)) {
    return std::nullopt;
  }
  return stat;
}

std::optional<std::uint64_t> parse_boot_time(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto end = text.find('\n', pos);
    const auto line = text.substr(pos, end == std::string_view::npos ? text.npos : end - pos);
    if (line.rfind("btime ", 0) == 0) {
      std::uint64_t value = 0;
      const auto digits = line.substr(6);
      if (std::from_chars(digits.data(), digits.data() + digits.size(), value).ec == std::errc{}) {
        return value;
      }
      return std::nullopt;
    }
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return std::nullopt;
}

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> out;
  try {
    const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
    const double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
    const auto stat_text = read_file("/proc/self/stat");
    const auto stat = stat_text ? parse_proc_stat(*stat_text) : std::nullopt;
    if (stat && ticks > 0) {
      out.push_back(single_sample_family(
          "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
          MetricType::Counter, static_cast<double>(stat->utime_ticks + stat->stime_ticks) / ticks));
      out.push_back(single_sample_family("process_resident_memory_bytes",
                                         "Resident memory size in bytes.", MetricType::Gauge,
                                         static_cast<double>(stat->rss_pages) * page));
      out.push_back(single_sample_family("process_virtual_memory_bytes",
                                         "Virtual memory size in bytes.", MetricType::Gauge,
                                         static_cast<double>(stat->vsize_bytes)));
      const auto system_text = read_file("/proc/stat");
      const auto boot = system_text ? parse_boot_time(*system_text) : std::nullopt;
      if (boot) {
        out.push_back(single_sample_family(
            "process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
            MetricType::Gauge,
            static_cast<double>(*boot) + static_cast<double>(stat->start_time_ticks) / ticks));
      }
    }
    if (const auto fds = open_fds()) {
      out.push_back(single_sample_family("process_open_fds", "Number of open file descriptors.",
                                         MetricType::Gauge, *fds));
    }
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) {
      out.push_back(single_sample_family("process_max_fds",
                                         "Maximum number of open file descriptors.",
                                         MetricType::Gauge, static_cast<double>(limit.rlim_cur)));
    }
    // As client_golang: the soft RLIMIT_AS; unlimited is 2^64-1, as procfs reads "unlimited".
    if (::getrlimit(RLIMIT_AS, &limit) == 0) {
      out.push_back(single_sample_family("process_virtual_memory_max_bytes",
                                         "Maximum amount of virtual memory available in bytes.",
                                         MetricType::Gauge, static_cast<double>(limit.rlim_cur)));
    }
  } catch (...) {
    // A scrape never fails because of these.
  }
  return out;
}

}  // namespace netif_rx
