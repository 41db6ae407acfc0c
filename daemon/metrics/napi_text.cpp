#include "metrics/napi_text.h"

#include <cstdint>
#include <string_view>

#include "metrics/text_format.h"

namespace netif_rx {
namespace {

struct Family {
  std::string_view name;
  std::string_view help;
  std::uint64_t NapiPolls::*field;
};

constexpr Family kDeviceFamilies[] = {
    {"netif_rx_napi_polls_total",
     "NAPI polls (napi:napi_poll) of the device's receive contexts, by the CPU that ran them; "
     "devices of the per-CPU class only.",
     &NapiPolls::polls},
    {"netif_rx_napi_polled_packets_total",
     "Packets the device's driver handed on in its NAPI polls (the polls' work), by CPU.",
     &NapiPolls::packets},
    {"netif_rx_napi_budget_exhausted_total",
     "NAPI polls of the device whose work reached their budget (packets were left for another "
     "round: the device's share of softnet_stat's time_squeeze), by CPU.",
     &NapiPolls::exhausted},
};

constexpr Family kBacklogFamilies[] = {
    {"netif_rx_backlog_polls_total",
     "Polls of a CPU's backlog (process_backlog: packets from netif_rx() and RPS), by CPU.",
     &NapiPolls::polls},
    {"netif_rx_backlog_polled_packets_total",
     "Packets taken from a CPU's backlog in its polls, by CPU.", &NapiPolls::packets},
    {"netif_rx_backlog_budget_exhausted_total",
     "Polls of a CPU's backlog whose work reached their budget, by CPU.", &NapiPolls::exhausted},
};

constexpr std::string_view kUntracked = "netif_rx_napi_untracked_polls_total";
constexpr std::string_view kUntrackedHelp =
    "NAPI polls counted without a device because the NAPI map was full.";

void append_cpu_value(std::string& out, std::size_t cpu, std::uint64_t value) {
  out.append("cpu=\"");
  append_integer(out, cpu);
  out.append("\"} ");
  append_integer(out, value);
  out.push_back('\n');
}

}  // namespace

void write_napi_text(std::string& out, const NapiSnapshot& napi, const RenderOptions& options) {
  if (!napi.attached) return;
  for (const Family& family : kDeviceFamilies) {
    append_family_header(out, family.name, family.help, "counter");
    for (const NapiDeviceSeries& device : napi.devices) {
      for (std::size_t cpu = 0; cpu < device.per_cpu.size(); ++cpu) {
        if (device.per_cpu[cpu].polls == 0) continue;
        out.append(family.name).push_back('{');
        append_device_netns(out, device.device, device.netns_inum, options.netns_label);
        out.push_back(',');
        append_cpu_value(out, cpu, device.per_cpu[cpu].*family.field);
      }
    }
  }
  for (const Family& family : kBacklogFamilies) {
    append_family_header(out, family.name, family.help, "counter");
    for (std::size_t cpu = 0; cpu < napi.backlog_per_cpu.size(); ++cpu) {
      if (napi.backlog_per_cpu[cpu].polls == 0) continue;
      out.append(family.name).push_back('{');
      append_cpu_value(out, cpu, napi.backlog_per_cpu[cpu].*family.field);
    }
  }
  append_family_header(out, kUntracked, kUntrackedHelp, "counter");
  out.append(kUntracked).push_back(' ');
  append_integer(out, napi.untracked.polls);
  out.push_back('\n');
}

}  // namespace netif_rx
