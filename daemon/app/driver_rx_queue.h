// Which network drivers record the RX queue a packet came in on
// (skb_record_rx_queue: skb->queue_mapping), which the probe reads for
// netif_rx_queue_packets_total. Pure.
#pragma once

#include <string_view>

namespace netif_rx {

enum class RxQueueRecording {
  yes,      // its receive path calls skb_record_rx_queue
  no,       // it does not: the device has no queue series
  unknown,  // not in the table: series appear only if it records one
};

// By the driver's name, as /sys/class/net/NAME/device/driver names it
// (e.g. "virtio_net", "mlx5_core", "ixgbe") or as ethtool -i does for
// virtual devices ("veth", "bridge", "bonding").
RxQueueRecording driver_records_rx_queue(std::string_view driver);

}  // namespace netif_rx
