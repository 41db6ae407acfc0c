#include "continuity/program_maps.h"

#include <bpf/bpf.h>

#include <algorithm>

namespace netif_rx {

std::vector<std::uint32_t> map_ids_of(int program_fd) {
  bpf_prog_info info{};
  std::uint32_t length = sizeof(info);
  if (bpf_obj_get_info_by_fd(program_fd, &info, &length) != 0) return {};
  std::vector<std::uint32_t> ids(info.nr_map_ids);
  bpf_prog_info with_ids{};
  with_ids.nr_map_ids = static_cast<std::uint32_t>(ids.size());
  with_ids.map_ids = reinterpret_cast<std::uintptr_t>(ids.data());
  length = sizeof(with_ids);
  if (bpf_obj_get_info_by_fd(program_fd, &with_ids, &length) != 0) return {};
  ids.resize(std::min<std::size_t>(ids.size(), with_ids.nr_map_ids));
  return ids;
}

std::uint32_t id_of_map(int map_fd) {
  bpf_map_info info{};
  std::uint32_t length = sizeof(info);
  return bpf_obj_get_info_by_fd(map_fd, &info, &length) == 0 ? info.id : 0;
}

}  // namespace netif_rx
