// The answer of a server that `top --from` reads: status line, headers,
// Content-Length and chunked bodies, within limits.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "top/http_response.h"
#include "top/http_url.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view raw(reinterpret_cast<const char*>(data), size);
  // Small limits, so that the fuzzer reaches them.
  const netif_rx::HttpLimits limits{512, 1024};
  try {
    (void)netif_rx::http_response_complete(raw, limits);
  } catch (const netif_rx::HttpFetchError&) {
  }
  try {
    const netif_rx::HttpResponse response = netif_rx::parse_http_response(raw, limits);
    if (response.body.size() > limits.max_body_bytes) __builtin_trap();
  } catch (const netif_rx::HttpFetchError&) {
  }
  (void)netif_rx::parse_http_url(raw.substr(0, 256));
  return 0;
}
