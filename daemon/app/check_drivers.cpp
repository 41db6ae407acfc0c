#include "app/check_drivers.h"

#include <string>

#include "app/driver_rx_queue.h"
#include "util/printable.h"

namespace netif_rx {
namespace {

std::string describe(const NicInfo& nic) {
  std::string text = printable(nic.name) + " (";
  text += nic.driver.empty() ? "no driver bound" : "driver " + printable(nic.driver);
  text += ", " + std::to_string(nic.rx_queues) + (nic.rx_queues == 1 ? " RX queue" : " RX queues");
  return text + ")";
}

CheckResult driver_line(const NicInfo& nic) {
  const std::string what = describe(nic);
  switch (driver_records_rx_queue(nic.driver)) {
    case RxQueueRecording::yes:
      return {true, false,
              what +
                  ": the driver records the RX queue: packets by queue and CPU in "
                  "netif_rx_queue_packets_total",
              ""};
    case RxQueueRecording::no:
      return {false, false,
              what + ": the driver records no RX queue: no netif_rx_queue_packets_total series",
              "nothing to fix in the exporter: its packets by CPU (netif_rx_packets_total) and "
              "steering still show where they are processed"};
    case RxQueueRecording::unknown:
      break;
  }
  return {true, false,
          what +
              ": unknown whether the driver records the RX queue: queue series appear only if it "
              "records one",
          ""};
}

}  // namespace

std::vector<CheckResult> check_driver_lines(const NicScan& scan) {
  std::vector<CheckResult> lines;
  if (!scan.error.empty()) {
    lines.push_back({false, false, "NIC drivers and RX queues: " + printable(scan.error),
                     "mount sysfs at /sys (the exporter reads device names from rtnetlink, "
                     "check reads drivers from /sys/class/net)"});
    return lines;
  }
  if (scan.nics.empty()) {
    lines.push_back({true, false,
                     "NIC drivers and RX queues: no device in this namespace has a parent device "
                     "(/sys/class/net/NAME/device): no NIC to record RX queues",
                     ""});
    return lines;
  }
  for (const NicInfo& nic : scan.nics) lines.push_back(driver_line(nic));
  if (scan.left_out > 0) {
    lines.push_back({true, false,
                     std::to_string(scan.left_out) + " more devices with a parent device, not "
                                                     "listed",
                     ""});
  }
  return lines;
}

}  // namespace netif_rx
