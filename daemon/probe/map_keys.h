// The keys of a hash map, walked with get_next_key.
#pragma once

#include <cerrno>
#include <cstddef>
#include <vector>

#include "probe/bpf_map.h"
#include "probe/map_reader.h"

namespace netif_rx {

// Keys of a hash map, at most `limit`; get_next_key restarts from the first
// key when the one it was given went meanwhile, so a key may come twice: the
// caller keeps the first.
template <typename Key>
std::vector<Key> keys_of(BpfMap& map, std::size_t limit, std::vector<MapAccessError>& errors) {
  std::vector<Key> keys;
  Key key{};
  Key next{};
  bool first = true;
  while (keys.size() < limit) {
    const int err = map.next_key(first ? nullptr : &key, &next);
    if (err == ENOENT) break;
    if (err != 0) {
      errors.push_back(map.error("get_next_key", err));
      break;
    }
    keys.push_back(next);
    key = next;
    first = false;
  }
  return keys;
}

}  // namespace netif_rx
