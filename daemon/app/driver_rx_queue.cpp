#include "app/driver_rx_queue.h"

#include <array>

namespace netif_rx {
namespace {

// Each calls skb_record_rx_queue() on the skbs of its receive path (the
// queue, ring or channel index it polled), in the mainline kernel: checked
// in each driver's source (e.g. mlx5e_build_rx_skb, ixgbe_process_skb_fields,
// virtio_net's receive_buf, tun_get_user, netvsc_recv_callback,
// vmxnet3_rq_rx_complete, nfp_net_rx, qede_rx_process_cqe,
// efx_rx_packet_gro). gve records it since Linux 5.18. mlx4's netdevs hang
// off the PCI driver mlx4_core, mlx4_en being the name ethtool shows.
constexpr std::array<std::string_view, 19> kRecords = {
    "virtio_net", "mlx5_core", "mlx4_core", "mlx4_en", "ixgbe", "i40e",    "iavf",
    "ice",        "igb",       "igc",       "ena",     "gve",   "bnxt_en", "tun",
    "hv_netvsc",  "vmxnet3",   "nfp",       "qede",    "sfc"};

// Their receive paths record no queue: veth and loopback hand the sender's
// skb on, a bridge or bond passes on the lower device's skb (whose queue
// counts on that device), ixgbevf's ixgbevf_process_skb_fields sets the hash,
// checksum, VLAN and protocol only.
constexpr std::array<std::string_view, 5> kDoesNotRecord = {"veth", "loopback", "bridge", "bonding",
                                                            "ixgbevf"};

template <std::size_t N>
bool listed(const std::array<std::string_view, N>& names, std::string_view driver) {
  for (std::string_view name : names) {
    if (name == driver) return true;
  }
  return false;
}

}  // namespace

RxQueueRecording driver_records_rx_queue(std::string_view driver) {
  if (listed(kRecords, driver)) return RxQueueRecording::yes;
  if (listed(kDoesNotRecord, driver) || driver == "lo") return RxQueueRecording::no;
  return RxQueueRecording::unknown;
}

}  // namespace netif_rx
