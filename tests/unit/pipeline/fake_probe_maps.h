// The maps every poller test reads, in memory: the devices' hash, their
// names and the probe's totals (every slot present, zero), for `cpus` CPUs.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "netif_rx.h"
#include "probe/fake_bpf_map.h"

namespace netif_rx::test {

struct FakeProbeMaps {
  explicit FakeProbeMaps(unsigned cpus) : cpus_(cpus) {
    for (std::uint32_t slot = 0; slot < NETIF_RX_PROBE_TOTALS_SLOTS; ++slot)
      totals->put_array(slot, std::vector<netif_rx_counters>(cpus));
  }
  FakeProbeMaps(const FakeProbeMaps&) = delete;
  FakeProbeMaps& operator=(const FakeProbeMaps&) = delete;

  const unsigned cpus_;
  std::shared_ptr<FakeBpfMap> counters = std::make_shared<FakeBpfMap>(
      "device_counters", sizeof(netif_rx_device_key), cpus_ * sizeof(netif_rx_counters));
  std::shared_ptr<FakeBpfMap> names = std::make_shared<FakeBpfMap>(
      "device_names", sizeof(netif_rx_device_key), sizeof(netif_rx_device_name));
  std::shared_ptr<FakeBpfMap> totals = std::make_shared<FakeBpfMap>(
      "probe_totals", sizeof(std::uint32_t), cpus_ * sizeof(netif_rx_counters));
};

}  // namespace netif_rx::test
