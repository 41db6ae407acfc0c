#include "napi/napi_reader.h"

#include <cerrno>
#include <string>
#include <unordered_set>

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

  // get_next_key restarts from the first key when the one it was given
  // went meanwhile: at most twice the capacity, each key kept once.
  std::unordered_set<std::string> seen;  // the keys' bytes
  netif_rx_device_key key{};
  netif_rx_device_key next{};
  bool first = true;
  for (std::size_t walked = 0; walked < 2 * NETIF_RX_MAX_NAPI_ENTRIES; ++walked) {
    const int err = counters_->next_key(first ? nullptr : &key, &next);
    if (err == ENOENT) break;
    if (err != 0) {
      out.errors.push_back(counters_->error("get_next_key", err));
      break;
    }
    key = next;
    first = false;
    if (!seen.emplace(reinterpret_cast<const char*>(&key), sizeof key).second) continue;
    NapiEntry entry{key, std::vector<netif_rx_napi_counters>(possible_cpus_)};
    const int lookup_err = counters_->lookup(&key, entry.per_cpu.data());
    if (lookup_err == ENOENT) continue;
    if (lookup_err != 0) {
      out.errors.push_back(counters_->error("lookup", lookup_err));
      continue;
    }
    out.entries.push_back(std::move(entry));
  }
  return out;
}

}  // namespace netif_rx
