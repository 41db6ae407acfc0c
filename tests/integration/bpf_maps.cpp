#include "bpf_maps.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "util/unique_fd.h"

namespace netif_rx::test {
namespace {

std::set<std::uint32_t> map_ids_of(pid_t pid) {
  std::set<std::uint32_t> ids;
  std::error_code error;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fdinfo";
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("map_id:", 0) == 0) ids.insert(std::stoul(line.substr(7)));
    }
  }
  return ids;
}

// Calls `use(fd, info)` for each map of `pid` named `name`, with a
// descriptor of its own that is closed afterwards.
template <typename Use>
void for_each_map_named(pid_t pid, const std::string& name, Use use) {
  for (std::uint32_t id : map_ids_of(pid)) {
    const UniqueFd fd(bpf_map_get_fd_by_id(id));
    if (!fd.valid()) continue;
    bpf_map_info info{};
    std::uint32_t length = sizeof info;
    if (bpf_obj_get_info_by_fd(fd.get(), &info, &length) == 0 && name == info.name) {
      use(fd.get(), info);
    }
  }
}

}  // namespace

std::vector<netif_rx_device_key> map_keys(pid_t pid, const std::string& map_name) {
  std::vector<netif_rx_device_key> keys;
  for_each_map_named(pid, map_name, [&](int fd, const bpf_map_info& info) {
    if (info.key_size != sizeof(netif_rx_device_key)) return;
    netif_rx_device_key key{};
    netif_rx_device_key next{};
    bool first = true;
    while (bpf_map_get_next_key(fd, first ? nullptr : &key, &next) == 0) {
      first = false;
      key = next;
      keys.push_back(key);
    }
  });
  return keys;
}

std::vector<netif_rx_device_key> counted_devices(pid_t pid, std::uint32_t host_netns_inum) {
  std::vector<netif_rx_device_key> keys = map_keys(pid, "device_counters");
  const int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) return keys;
  for_each_map_named(pid, "host_counters", [&](int fd, const bpf_map_info& info) {
    std::vector<netif_rx_counters> values(static_cast<std::size_t>(cpus));
    for (std::uint32_t slot = 0; slot < info.max_entries; ++slot) {
      if (bpf_map_lookup_elem(fd, &slot, values.data()) != 0) continue;
      for (const auto& cpu : values) {
        if (cpu.skbs == 0) continue;
        keys.push_back({host_netns_inum, slot, 0});  // own namespace: salt 0
        break;
      }
    }
  });
  return keys;
}

bool put_device_name(pid_t pid, const netif_rx_device_key& key, const std::string& name) {
  bool written = false;
  for_each_map_named(pid, "device_names", [&](int fd, const bpf_map_info&) {
    netif_rx_device_name value{};
    name.copy(value.name, sizeof value.name - 1);
    written = bpf_map_update_elem(fd, &key, &value, BPF_ANY) == 0;
  });
  return written;
}

int fill_device_names(pid_t pid, std::uint32_t netns_inum, int most) {
  int written = 0;
  for_each_map_named(pid, "device_names", [&](int fd, const bpf_map_info&) {
    const netif_rx_device_name value{"fill"};
    for (int i = 0; i < most; ++i) {
      const netif_rx_device_key key{netns_inum, 100000 + static_cast<std::uint32_t>(i), 0};
      if (bpf_map_update_elem(fd, &key, &value, BPF_NOEXIST) != 0) break;
      ++written;
    }
  });
  return written;
}

netif_rx_netns_block netns_table_entry(pid_t pid, std::uint32_t netns_inum) {
  netif_rx_netns_block found{};
  for_each_map_named(pid, "netns_table", [&](int fd, const bpf_map_info& info) {
    if (info.value_size != sizeof(netif_rx_netns_block)) return;
    for (std::uint32_t index = 0; index < info.max_entries; ++index) {
      netif_rx_netns_block entry{};
      if (bpf_map_lookup_elem(fd, &index, &entry) == 0 && entry.netns_inum == netns_inum)
        found = entry;
    }
  });
  return found;
}

std::set<std::uint32_t> netns_table_blocks(pid_t pid) {
  std::set<std::uint32_t> blocks;
  for_each_map_named(pid, "netns_table", [&](int fd, const bpf_map_info& info) {
    if (info.value_size != sizeof(netif_rx_netns_block)) return;
    for (std::uint32_t index = 0; index < info.max_entries; ++index) {
      netif_rx_netns_block entry{};
      if (bpf_map_lookup_elem(fd, &index, &entry) == 0 && entry.netns_inum != 0)
        blocks.insert(entry.block);
    }
  });
  return blocks;
}

std::uint64_t netns_slot_skbs(pid_t pid, std::uint32_t slot) {
  std::uint64_t skbs = 0;
  const int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) return 0;
  for_each_map_named(pid, "netns_slots", [&](int fd, const bpf_map_info&) {
    std::vector<netif_rx_counters> values(static_cast<std::size_t>(cpus));
    if (bpf_map_lookup_elem(fd, &slot, values.data()) != 0) return;
    for (const auto& cpu : values) skbs += cpu.skbs;
  });
  return skbs;
}

std::vector<netif_rx_device_key> keys_in(const std::vector<netif_rx_device_key>& keys,
                                         std::uint32_t netns_inum) {
  std::vector<netif_rx_device_key> out;
  for (const auto& key : keys) {
    if (key.netns_inum == netns_inum) out.push_back(key);
  }
  return out;
}

}  // namespace netif_rx::test
