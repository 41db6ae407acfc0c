// The bpftrace one-liner people run today, made attachable at will:
// bpftrace (Debian's package) compiles and loads it; the benchmark takes a
// descriptor of the loaded program, lets bpftrace exit, and attaches that
// same program to the tracepoint itself (one perf event), so that it
// can alternate with the other programs as fast as they do.
#pragma once

#include <memory>

#include "kernel_programs.h"

namespace netif_rx::bench {

inline constexpr const char* kOneLiner =
    "t:net:netif_receive_skb { @[str(args->name)] = lhist(cpu, 0, 128, 1); }";

// Throws std::runtime_error with bpftrace's own output when it fails.
std::unique_ptr<BenchProgram> make_oneliner();

}  // namespace netif_rx::bench
