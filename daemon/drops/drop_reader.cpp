#include "drops/drop_reader.h"

#include <cerrno>
#include <cstring>
#include <string>
#include <unordered_set>

#include "probe/map_keys.h"

namespace netif_rx {

DropReader::DropReader(std::unique_ptr<BpfMap> counters, std::unique_ptr<BpfMap> names,
                       std::unique_ptr<BpfMap> totals, unsigned possible_cpus)
    : counters_(std::move(counters)),
      names_(std::move(names)),
      totals_(std::move(totals)),
      possible_cpus_(possible_cpus) {}

DropCounts DropReader::read() {
  DropCounts out;
  for (std::uint32_t slot :
       {std::uint32_t{NETIF_RX_DROP_SLOT_COUNTED}, std::uint32_t{NETIF_RX_DROP_SLOT_UNTRACKED}}) {
    std::vector<std::uint64_t> per_cpu(possible_cpus_);
    if (const int err = totals_->lookup(&slot, per_cpu.data()); err != 0) {
      out.errors.push_back(totals_->error("lookup", err));
      per_cpu.assign(possible_cpus_, 0);
    }
    (slot == NETIF_RX_DROP_SLOT_COUNTED ? out.counted_per_cpu : out.untracked_per_cpu) =
        std::move(per_cpu);
  }

  // Twice the capacity: a restart of the walk may repeat keys.
  const auto keys =
      keys_of<netif_rx_drop_key>(*counters_, 2 * NETIF_RX_MAX_DROP_ENTRIES, out.errors);
  std::unordered_set<std::string> seen;  // the keys' bytes
  for (const netif_rx_drop_key& key : keys) {
    DropEntry entry{key, std::vector<std::uint64_t>(possible_cpus_)};
    const int err = counters_->lookup(&key, entry.per_cpu.data());
    if (err == ENOENT) continue;
    if (err != 0) {
      out.errors.push_back(counters_->error("lookup", err));
      continue;
    }
    if (seen.emplace(reinterpret_cast<const char*>(&key), sizeof key).second)
      out.entries.push_back(std::move(entry));
  }

  const auto name_keys =
      keys_of<netif_rx_device_key>(*names_, 2 * NETIF_RX_MAX_DROP_ENTRIES, out.errors);
  for (const netif_rx_device_key& key : name_keys) {
    netif_rx_device_name name{};
    const int err = names_->lookup(&key, &name);
    if (err == ENOENT) continue;
    if (err != 0) {
      out.errors.push_back(names_->error("lookup", err));
      continue;
    }
    out.names.emplace(key, std::string(name.name, strnlen(name.name, sizeof name.name)));
  }
  return out;
}

}  // namespace netif_rx
