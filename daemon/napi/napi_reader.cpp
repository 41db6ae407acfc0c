#include "napi/napi_reader.h"

#include <cerrno>
#include <string>
#include <unordered_set>

#include "probe/map_keys.h"

namespace netif_rx {

NapiReader::NapiReader(std::unique_ptr<BpfMap> counters, std::unique_ptr<BpfMap> totals,
                       unsigned possible_cpus)
    : counters_(std::move(counters)), totals_(std::move(totals)), possible_cpus_(possible_cpus) {}

NapiCounts NapiReader::read() {
  NapiCounts out;
  for (std::uint32_t slot :
       {std::uint32_t{NETIF_RX_NAPI_SLOT_BACKLOG}, std::uint32_t{NETIF_RX_NAPI_SLOT_UNTRACKED}}) {
    std::vector<netif_rx_napi_counters> per_cpu(possible_cpus_);
    if (const int err = totals_->lookup(&slot, per_cpu.data()); err != 0) {
      out.errors.push_back(totals_->error("lookup", err));
      per_cpu.assign(possible_cpus_, netif_rx_napi_counters{});
    }
    (slot == NETIF_RX_NAPI_SLOT_BACKLOG ? out.backlog_per_cpu : out.untracked_per_cpu) =
        std::move(per_cpu);
  }

  // Twice the capacity: a restart of the walk may repeat keys.
  const auto keys =
      keys_of<netif_rx_device_key>(*counters_, 2 * NETIF_RX_MAX_NAPI_ENTRIES, out.errors);
  std::unordered_set<std::string> seen;  // the keys' bytes
  for (const netif_rx_device_key& key : keys) {
    if (!seen.emplace(reinterpret_cast<const char*>(&key), sizeof key).second) continue;
    NapiEntry entry{key, std::vector<netif_rx_napi_counters>(possible_cpus_)};
    const int err = counters_->lookup(&key, entry.per_cpu.data());
    if (err == ENOENT) continue;
    if (err != 0) {
      out.errors.push_back(counters_->error("lookup", err));
      continue;
    }
    out.entries.push_back(std::move(entry));
  }
  return out;
}

}  // namespace netif_rx
