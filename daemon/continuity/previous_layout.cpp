#include "continuity/previous_layout.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "continuity/program_maps.h"
#include "util/errno_text.h"

namespace netif_rx {
namespace {

// The pin of the read-only data: pin_name() of libbpf's name for it,
// "<object>.rodata".
constexpr const char* kRodataPin = "netif_rx_rodata";

// A map whose counts this exporter knows how to carry: its shape, as this
// layout defines it (bpf/netif_rx.h).
struct KnownMap {
  const char* name;
  bpf_map_type type;
  std::uint32_t key_size;
  std::uint32_t value_size;  // 0: any (the read-only data)
  bool required;
};

constexpr KnownMap kKnownMaps[] = {
    {"device_counters", BPF_MAP_TYPE_PERCPU_HASH, sizeof(netif_rx_device_key),
     sizeof(netif_rx_counters), true},
    {"probe_totals", BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(std::uint32_t), sizeof(netif_rx_counters),
     true},
    {"host_counters", BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(std::uint32_t), sizeof(netif_rx_counters),
     false},
    {"netns_table", BPF_MAP_TYPE_ARRAY, sizeof(std::uint32_t), sizeof(netif_rx_netns_block), false},
    {"netns_slots", BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(std::uint32_t), sizeof(netif_rx_counters),
     false},
    {"device_names", BPF_MAP_TYPE_HASH, sizeof(netif_rx_device_key), sizeof(netif_rx_device_name),
     false},
    {"carried_counters", BPF_MAP_TYPE_PERCPU_HASH, sizeof(netif_rx_device_key),
     sizeof(netif_rx_counters), false},
    {"carried_totals", BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(std::uint32_t), sizeof(netif_rx_counters),
     false},
    {kRodataPin, BPF_MAP_TYPE_ARRAY, sizeof(std::uint32_t), 0, true},
};

struct BtfFree {
  void operator()(btf* loaded) const { btf__free(loaded); }
};

// A shape mismatch of a known map; empty when it matches.
std::string shape_mismatch(const KnownMap& known, int fd) {
  bpf_map_info info{};
  std::uint32_t length = sizeof(info);
  if (bpf_obj_get_info_by_fd(fd, &info, &length) != 0) return "it is not a BPF map";
  if (info.type != static_cast<std::uint32_t>(known.type) || info.key_size != known.key_size ||
      (known.value_size != 0 && info.value_size != known.value_size)) {
    return "map type " + std::to_string(info.type) + ", key " + std::to_string(info.key_size) +
           " bytes, value " + std::to_string(info.value_size) + " bytes where this exporter's " +
           known.name + " has type " + std::to_string(known.type) + ", key " +
           std::to_string(known.key_size) + " bytes, value " + std::to_string(known.value_size) +
           " bytes";
  }
  return "";
}

// The u32 variables of the read-only data `rodata_fd`, by name, through the
// BTF the kernel keeps for it, and its u64 `generation` when it has one.
// False, with `why`, when it cannot be read.
bool read_settings(int rodata_fd, bool needs_host, bool needs_blocks, PreviousSettings& settings,
                   std::optional<std::uint64_t>& generation, std::string& why) {
  bpf_map_info info{};
  std::uint32_t length = sizeof(info);
  if (bpf_obj_get_info_by_fd(rodata_fd, &info, &length) != 0 || info.btf_id == 0) {
    why = "its read-only data has no BTF to read its settings from";
    return false;
  }
  std::unique_ptr<btf, BtfFree> types(btf__load_from_kernel_by_id(info.btf_id));
  if (!types) {
    why = "reading the BTF of its read-only data failed: " + errno_text(errno) +
          " (it needs CAP_SYS_ADMIN)";
    return false;
  }
  const btf_type* section = btf__type_by_id(types.get(), info.btf_value_type_id);
  if (section == nullptr || !btf_is_datasec(section)) {
    why = "its read-only data is not described as a data section";
    return false;
  }
  std::vector<char> value(info.value_size);
  const std::uint32_t key = 0;
  if (bpf_map_lookup_elem(rodata_fd, &key, value.data()) != 0) {
    why = "reading its read-only data failed: " + errno_text(errno);
    return false;
  }
  std::map<std::string, std::uint32_t> variables;
  const btf_var_secinfo* entry = btf_var_secinfos(section);
  for (int i = 0; i < btf_vlen(section); ++i, ++entry) {
    const btf_type* variable = btf__type_by_id(types.get(), entry->type);
    if (variable == nullptr || !btf_is_var(variable) ||
        entry->offset + entry->size > value.size()) {
      continue;
    }
    const char* name = btf__name_by_offset(types.get(), variable->name_off);
    if (entry->size == sizeof(std::uint64_t) && std::strcmp(name, "generation") == 0) {
      std::uint64_t pinned = 0;
      std::memcpy(&pinned, value.data() + entry->offset, sizeof pinned);
      generation = pinned;
      continue;
    }
    if (entry->size != sizeof(std::uint32_t)) continue;
    std::uint32_t word = 0;
    std::memcpy(&word, value.data() + entry->offset, sizeof word);
    variables[name] = word;
  }
  const auto take = [&variables, &why](const char* name, std::uint32_t& out) {
    const auto found = variables.find(name);
    if (found == variables.end()) {
      why = std::string("its read-only data has no u32 ") + name;
      return false;
    }
    out = found->second;
    return true;
  };
  if (needs_host && !take("host_netns_inum", settings.host_netns_inum)) return false;
  if (needs_blocks && (!take("netns_blocks", settings.netns_blocks) ||
                       !take("netns_block_slots", settings.netns_block_slots))) {
    return false;
  }
  return true;
}

}  // namespace

std::optional<PreviousLayout> inspect_previous_layout(
    const std::string& layout, std::vector<std::pair<std::string, UniqueFd>>&& kept, int control_fd,
    std::string& why) {
  PreviousLayout previous;
  previous.layout = layout;
  for (auto& entry : kept) {
    const std::string& name = entry.first;
    UniqueFd& fd = entry.second;
    if (name == "link") {
      previous.link = std::move(fd);
    } else if (name == "program") {
      previous.program = std::move(fd);
    } else {
      const auto known = std::find_if(std::begin(kKnownMaps), std::end(kKnownMaps),
                                      [&name](const KnownMap& map) { return name == map.name; });
      if (known == std::end(kKnownMaps)) continue;  // another layout's own: not read
      if (std::string mismatch = shape_mismatch(*known, fd.get()); !mismatch.empty()) {
        why = "its " + name + " is " + mismatch;
        return std::nullopt;
      }
      previous.maps.emplace(name, std::move(fd));
    }
  }
  for (const KnownMap& known : kKnownMaps) {
    if (known.required && previous.maps.count(known.name) == 0) {
      why = std::string("it has no ") + known.name + " (incomplete pins)";
      return std::nullopt;
    }
  }
  if (!previous.link.valid() || !previous.program.valid()) {
    why = "it has no link or program (incomplete pins)";
    return std::nullopt;
  }
  bpf_link_info link_info{};
  std::uint32_t length = sizeof(link_info);
  bpf_prog_info program_info{};
  std::uint32_t program_length = sizeof(program_info);
  if (bpf_obj_get_info_by_fd(previous.link.get(), &link_info, &length) != 0 ||
      bpf_obj_get_info_by_fd(previous.program.get(), &program_info, &program_length) != 0 ||
      link_info.prog_id != program_info.id) {
    why = "its pinned program is not the one its link attaches";
    return std::nullopt;
  }
  previous.program_id = program_info.id;
  const std::vector<std::uint32_t> used = map_ids_of(previous.program.get());
  if (std::find(used.begin(), used.end(), id_of_map(control_fd)) == used.end()) {
    why =
        "its program does not obey the control map (layouts before 3), so it cannot hand the "
        "counting over";
    return std::nullopt;
  }
  const bool blocks =
      previous.maps.count("netns_table") != 0 && previous.maps.count("netns_slots") != 0;
  if (!read_settings(previous.maps.at(kRodataPin).get(), previous.maps.count("host_counters") != 0,
                     blocks, previous.settings, previous.generation, why)) {
    return std::nullopt;
  }
  if (!blocks) previous.settings.netns_blocks = 0;
  return previous;
}

}  // namespace netif_rx
