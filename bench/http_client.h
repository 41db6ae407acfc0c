// A minimal HTTP/1.0 client for the benchmarks: one GET to 127.0.0.1.
#pragma once

#include <string>

namespace netif_rx::bench {

// One GET over HTTP/1.0; returns the body ("" on failure).
std::string http_get(int port, const char* path, const char* headers = "");

// A TCP port of 127.0.0.1 that nothing listens on now.
int free_port();

}  // namespace netif_rx::bench
