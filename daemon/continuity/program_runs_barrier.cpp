#include "continuity/program_runs_barrier.h"

#include <bpf/bpf.h>

#include <cerrno>
#include <cstdint>

#include "continuity/probe_error.h"
#include "util/errno_text.h"

namespace netif_rx {

ProgramRunsBarrier::ProgramRunsBarrier()
    : inner_(bpf_map_create(BPF_MAP_TYPE_ARRAY, "netif_rx_sync", sizeof(std::uint32_t),
                            sizeof(std::uint32_t), 1, nullptr)) {
  if (!inner_.valid()) throw ProbeError("creating a map to wait on failed: " + errno_text(errno));
  LIBBPF_OPTS(bpf_map_create_opts, outer_opts, .inner_map_fd = static_cast<__u32>(inner_.get()));
  outer_.reset(bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "netif_rx_sync_o", sizeof(std::uint32_t),
                              sizeof(std::uint32_t), 1, &outer_opts));
  if (!outer_.valid()) throw ProbeError("creating a map to wait on failed: " + errno_text(errno));
}

void ProgramRunsBarrier::wait() const {
  const std::uint32_t key = 0;
  const std::uint32_t value = static_cast<std::uint32_t>(inner_.get());
  // The kernel returns from this update after synchronize_rcu().
  if (bpf_map_update_elem(outer_.get(), &key, &value, BPF_ANY) != 0)
    throw ProbeError("waiting for running BPF programs failed: " + errno_text(errno));
}

}  // namespace netif_rx
