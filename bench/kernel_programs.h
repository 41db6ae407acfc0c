// The BPF programs the benchmark compares, each attachable and detachable
// at will so that bursts with and without it can alternate quickly.
#pragma once

#include <bpf/libbpf.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

struct netif_rx_bpf;
struct empty_floor;

namespace netif_rx::bench {

struct RunCounters {
  std::uint64_t run_time_ns = 0;
  std::uint64_t run_count = 0;
};
RunCounters read_run_counters(int program_fd);

// What the verifier and the JIT left of a loaded program.
struct ProgramSize {
  std::uint32_t xlated_insns = 0;  // BPF instructions after the verifier's rewrites
  std::uint32_t jited_bytes = 0;   // machine code
};
ProgramSize read_program_size(int program_fd);

class BenchProgram {
 public:
  virtual ~BenchProgram() = default;
  virtual std::string name() const = 0;
  virtual void attach() = 0;
  virtual void detach() = 0;
  virtual int program_fd() const = 0;
};

// Where the probe counts the devices of the namespace it treats as its own.
enum class ProbeLayout {
  array,  // the per-CPU array by ifindex (the exporter's own namespace)
  // The same built without counting queues and steering (bpf/netif_rx.bpf.c
  // with NETIF_RX_WITHOUT_ROUTES): what reading and testing them costs the
  // hot path.
  array_without_routes,
  hash,  // the per-CPU hash by (netns, ifindex, salt): other namespaces, large ifindexes
  // A block of the per-CPU array netns_slots: another namespace, placed
  // (namespaces: all). The probe's own namespace is then none of the
  // benchmark's, so it counts every namespace of the machine.
  blocks,
};

// The exporter's probe (tp_btf twin), counting the namespace `netns_inum`.
// The hash layout is the same program with a one-slot array, so that every
// device of that namespace falls back to the hash.
std::unique_ptr<BenchProgram> make_our_probe(std::uint32_t netns_inum, ProbeLayout layout);
// The probe counting every namespace (namespaces: all) with the namespaces
// `netns_inums` placed in blocks, as the daemon places them: `send` makes a
// few packets arrive in each (their hash entries give the salts), then their
// table entries are written. With no namespace to place, every namespace
// stays in the hash: the path of other namespaces without blocks.
std::unique_ptr<BenchProgram> make_our_probe_in_blocks(
    const std::vector<std::uint32_t>& netns_inums, const std::function<void()>& send);
// An empty tp_btf program: the floor.
std::unique_ptr<BenchProgram> make_empty_floor();
// The rungs between the floor and the probe (bench/bpf/cost_ladder.bpf.c),
// cheapest first; the namespace rung counts the devices of `netns_inum`.
std::vector<std::unique_ptr<BenchProgram>> make_cost_ladder(std::uint32_t netns_inum);

}  // namespace netif_rx::bench
