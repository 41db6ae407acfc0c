#include "metrics/drops_text.h"

#include "metrics/data_families.h"
#include "metrics/text_format.h"

namespace netif_rx {
namespace {

constexpr std::string_view kDrops = "netif_rx_drops_total";
constexpr std::string_view kDropsHelp =
    "Packets dropped on the receive path (skb:kfree_skb) by the device that received them and "
    "the kernel's drop reason (enum skb_drop_reason without SKB_DROP_REASON_).";
constexpr std::string_view kBacklog = "netif_rx_backlog_drops_total";
constexpr std::string_view kBacklogHelp =
    "Packets dropped because a CPU's backlog queue was full (reason CPU_BACKLOG), by the CPU "
    "that dropped them (before Linux 5.18: /proc/net/softnet_stat's dropped column, 32-bit "
    "wraps counted).";
constexpr std::string_view kUntracked = "netif_rx_untracked_drops_total";
constexpr std::string_view kUntrackedHelp =
    "Receive drops counted without a device or reason because the drop map was full.";

void append_value(std::string& out, std::uint64_t value) {
  out.push_back(' ');
  append_integer(out, value);
  out.push_back('\n');
}

}  // namespace

void write_drops_text(std::string& out, const DropsSnapshot& drops, const RenderOptions& options) {
  if (drops.backlog) {
    append_family_header(out, kBacklog, kBacklogHelp, "counter");
    for (std::size_t cpu = 0; cpu < drops.backlog_per_cpu.size(); ++cpu) {
      if (drops.backlog_per_cpu[cpu] == 0) continue;
      out.append(kBacklog).append("{cpu=\"");
      append_integer(out, cpu);
      out.append("\"}");
      append_value(out, drops.backlog_per_cpu[cpu]);
    }
  }
  if (!drops.attached) return;
  append_family_header(out, kDrops, kDropsHelp, "counter");
  for (const DropSeries& series : drops.series) {
    out.append(kDrops).push_back('{');
    append_device_netns(out, series.device, series.netns_inum, options.netns_label);
    out.push_back(',');
    append_label(out, "reason", series.reason);
    out.push_back('}');
    append_value(out, series.packets);
  }
  for (const FoldedDrops& folded : drops.folded) {
    out.append(kDrops).push_back('{');
    append_label(out, "device", data_families::kFoldedDevice);
    out.push_back(',');
    append_label(out, "reason", folded.reason);
    out.push_back('}');
    append_value(out, folded.packets);
  }

  append_family_header(out, kUntracked, kUntrackedHelp, "counter");
  out.append(kUntracked);
  append_value(out, drops.untracked);
}

}  // namespace netif_rx
