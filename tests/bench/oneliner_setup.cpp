// The benchmark's set-up of the bpftrace one-liner, alone: bpftrace loads it,
// the benchmark takes its program and attaches it once. Prints one line and
// exits 0, or the benchmark's own one-line error and exits 1.
#include <cstdio>
#include <exception>

#include "oneliner.h"

int main() {
  try {
    auto oneliner = netif_rx::bench::make_oneliner();
    oneliner->attach();
    oneliner->detach();
    std::printf("oneliner_setup: bpftrace loaded the one-liner; attached and detached it\n");
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "oneliner_setup: %s\n", error.what());
    return 1;
  }
}
