// The BPF programs the benchmark compares, each attachable and detachable
// at will so that bursts with and without it can alternate quickly.
#pragma once

#include <bpf/libbpf.h>

#include <cstdint>
#include <memory>
#include <string>

struct netif_rx_bpf;
struct empty_floor;

namespace netif_rx::bench {

struct RunCounters {
  std::uint64_t run_time_ns = 0;
  std::uint64_t run_count = 0;
};
RunCounters read_run_counters(int program_fd);

class BenchProgram {
 public:
  virtual ~BenchProgram() = default;
  virtual std::string name() const = 0;
  virtual void attach() = 0;
  virtual void detach() = 0;
  virtual int program_fd() const = 0;
};

// The exporter's probe (tp_btf twin), counting the namespace `netns_inum`.
std::unique_ptr<BenchProgram> make_our_probe(std::uint32_t netns_inum);
// An empty tp_btf program: the floor.
std::unique_ptr<BenchProgram> make_empty_floor();

}  // namespace netif_rx::bench
