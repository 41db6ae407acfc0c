// Compressing a response body for a client that accepts gzip (Prometheus
// sends `Accept-Encoding: gzip` with every scrape).
#pragma once

#include <string>
#include <string_view>

namespace netif_rx {

// True when an Accept-Encoding header value (null: no header) lists gzip
// (or `*`) without `q=0`. Tokens are case-insensitive; anything malformed
// counts as not accepting.
bool accepts_gzip(const char* accept_encoding);

// `text` as one gzip member (RFC 1952), at a fast compression level.
// Throws std::runtime_error if zlib fails (out of memory). Each calling
// thread keeps a deflate state (some 260 KiB) for its next body: call it from
// few, long-lived threads (the render thread), not from every HTTP worker.
std::string gzip_compress(std::string_view text);

}  // namespace netif_rx
