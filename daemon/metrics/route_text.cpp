#include "metrics/route_text.h"

#include <cstdint>
#include <string_view>

#include "metrics/text_format.h"

namespace netif_rx {
namespace {

constexpr std::string_view kQueue = "netif_rx_queue_packets_total";
constexpr std::string_view kQueueHelp =
    "Packets by the RX queue their driver recorded and the CPU that processed them; devices of "
    "the per-CPU class that record a queue only.";
constexpr std::string_view kQueueUntracked = "netif_rx_queue_untracked_packets_total";
constexpr std::string_view kQueueUntrackedHelp =
    "Packets of a recorded queue counted without their queue because the queue map was full.";
constexpr std::string_view kSteered = "netif_rx_steered_packets_total";
constexpr std::string_view kSteeredHelp =
    "Packets processed on cpu that another CPU, from_cpu, built (RPS/RFS steering, cross-CPU "
    "work); devices of the per-CPU class only.";
constexpr std::string_view kSteeredUntracked = "netif_rx_steered_untracked_packets_total";
constexpr std::string_view kSteeredUntrackedHelp =
    "Steered packets counted without their device because the steering map was full.";

void append_device(std::string& out, std::string_view family, const RouteLine& line,
                   const RenderOptions& options) {
  out.append(family).push_back('{');
  append_device_netns(out, line.device, line.netns_inum, options.netns_label);
}

void append_value(std::string& out, std::uint64_t value) {
  out.append("} ");
  append_integer(out, value);
  out.push_back('\n');
}

void append_total(std::string& out, std::string_view family, std::string_view help,
                  std::uint64_t value) {
  append_family_header(out, family, help, "counter");
  out.append(family).push_back(' ');
  append_integer(out, value);
  out.push_back('\n');
}

}  // namespace

void write_route_text(std::string& out, const RouteSnapshot& routes, const RenderOptions& options) {
  if (!routes.attached) return;
  append_family_header(out, kQueue, kQueueHelp, "counter");
  for (const RouteLine& line : routes.queues) {
    append_device(out, kQueue, line, options);
    out.append(",queue=\"");
    append_integer(out, line.from);
    out.append("\",cpu=\"");
    append_integer(out, line.cpu);
    out.push_back('"');
    append_value(out, line.packets);
  }
  append_total(out, kQueueUntracked, kQueueUntrackedHelp, routes.queue_untracked);
  if (!routes.steering) return;
  append_family_header(out, kSteered, kSteeredHelp, "counter");
  for (const RouteLine& line : routes.steered) {
    append_device(out, kSteered, line, options);
    out.append(",cpu=\"");
    append_integer(out, line.cpu);
    out.append("\",from_cpu=\"");
    append_integer(out, line.from);
    out.push_back('"');
    append_value(out, line.packets);
  }
  append_total(out, kSteeredUntracked, kSteeredUntrackedHelp, routes.steer_untracked);
}

}  // namespace netif_rx
