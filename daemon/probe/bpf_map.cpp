#include "probe/bpf_map.h"

#include <bpf/bpf.h>

#include <cerrno>
#include <cstring>

namespace netif_rx {
namespace {

// libbpf 1.x returns -errno (and sets errno too).
int error_of(int result) {
  if (result == 0) return 0;
  return result < 0 ? -result : errno;
}

}  // namespace

std::string MapAccessError::describe() const {
  return "map " + map + ": " + operation + " failed: " + std::strerror(error);
}

int KernelBpfMap::lookup(const void* key, void* value) {
  return error_of(bpf_map_lookup_elem(fd_, key, value));
}

int KernelBpfMap::next_key(const void* key, void* next) {
  return error_of(bpf_map_get_next_key(fd_, key, next));
}

int KernelBpfMap::remove(const void* key) { return error_of(bpf_map_delete_elem(fd_, key)); }

int KernelBpfMap::update(const void* key, const void* value) {
  return error_of(bpf_map_update_elem(fd_, key, value, BPF_ANY));
}

int KernelBpfMap::lookup_batch(std::uint64_t* in_token, std::uint64_t* out_token, void* keys,
                               void* values, std::uint32_t* count) {
  LIBBPF_OPTS(bpf_map_batch_opts, opts);
  return error_of(bpf_map_lookup_batch(fd_, in_token, out_token, keys, values, count, &opts));
}

}  // namespace netif_rx
