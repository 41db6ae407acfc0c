#include "drops/drop_reasons.h"

#include <bpf/btf.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <memory>

#include "netif_rx.h"
#include "util/errno_text.h"

namespace netif_rx {
namespace {

constexpr std::string_view kPrefix = "SKB_DROP_REASON_";
constexpr std::size_t kMaxEnumerators = 4096;
constexpr std::size_t kMaxNameBytes = 64;

}  // namespace

bool is_transmit_reason(std::string_view name) {
  constexpr std::array<std::string_view, 5> kPrefixes = {"QDISC_", "NEIGH_", "FQ_", "DUALPI2_",
                                                         "CAKE_"};
  for (std::string_view prefix : kPrefixes) {
    if (name.substr(0, prefix.size()) == prefix) return true;
  }
  constexpr std::array<std::string_view, 12> kNames = {
      "TC_EGRESS",         "DEV_READY",    "FULL_RING",    "IP_OUTNOROUTES",
      "BPF_CGROUP_EGRESS", "TAP_TXFILTER", "NO_TX_TARGET", "TUNNEL_TXINFO",
      "SKB_GSO_SEG",       "PSP_OUTPUT",   "QUEUE_PURGE",  "RECURSION_LIMIT"};
  for (std::string_view known : kNames) {
    if (name == known) return true;
  }
  return false;
}

DropReasonTable drop_reason_table(const std::vector<EnumValue>& enumerators) {
  DropReasonTable table;
  table.names.resize(NETIF_RX_DROP_REASONS);
  table.counted.resize(NETIF_RX_DROP_REASONS);
  for (const EnumValue& enumerator : enumerators) {
    const std::string_view name = enumerator.name;
    if (name.substr(0, kPrefix.size()) != kPrefix) continue;
    if (enumerator.value < 0 || enumerator.value >= NETIF_RX_DROP_REASONS) continue;
    const std::string_view reason = name.substr(kPrefix.size());
    if (reason.empty() || reason == "MAX" || reason == "SUBSYS_MASK") continue;
    const auto value = static_cast<std::size_t>(enumerator.value);
    if (!table.names[value].empty()) continue;  // an alias: the first name holds
    table.names[value] = std::string(reason);
    table.counted[value] = !is_transmit_reason(reason);
    if (reason == "CPU_BACKLOG") table.backlog = static_cast<std::uint32_t>(value);
  }
  return table;
}

std::optional<std::vector<EnumValue>> read_drop_reason_enum(const std::string& btf_path,
                                                            std::string& error) {
  const auto free_btf = [](btf* parsed) { btf__free(parsed); };
  std::unique_ptr<btf, decltype(free_btf)> parsed(btf__parse(btf_path.c_str(), nullptr), free_btf);
  if (!parsed) {
    error = "reading BTF at " + btf_path + " failed: " + errno_text(errno);
    return std::nullopt;
  }
  std::vector<EnumValue> enumerators;
  const __s32 id = btf__find_by_name_kind(parsed.get(), "skb_drop_reason", BTF_KIND_ENUM);
  if (id < 0) return enumerators;
  const btf_type* type = btf__type_by_id(parsed.get(), static_cast<__u32>(id));
  if (type == nullptr || !btf_is_enum(type)) return enumerators;
  const struct btf_enum* values = btf_enum(type);
  const std::size_t count = std::min<std::size_t>(btf_vlen(type), kMaxEnumerators);
  enumerators.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const char* name = btf__name_by_offset(parsed.get(), values[i].name_off);
    if (name == nullptr) continue;
    std::string_view text(name);
    if (text.size() > kMaxNameBytes) continue;
    // An enum of 4 bytes: values above INT32_MAX read as negative when
    // signed; the reasons that matter are small and unsigned.
    enumerators.push_back(
        {std::string(text), static_cast<std::int64_t>(static_cast<std::uint32_t>(values[i].val))});
  }
  return enumerators;
}

}  // namespace netif_rx
