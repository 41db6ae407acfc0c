// One client connection for `top --from`: TCP, or TLS over it (OpenSSL,
// verifying the server against a CA file or the system's store). Every call
// waits at most until the deadline. Throws HttpFetchError with one line.
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "top/http_url.h"
#include "util/unique_fd.h"

namespace netif_rx {

using HttpDeadline = std::chrono::steady_clock::time_point;

class HttpConnection {
 public:
  // Connects to `url` (with TLS for https://, trusting the certificates in
  // `ca_file`, or the system's when empty); the connection and every
  // exchange over it end within `timeout` from now.
  HttpConnection(const HttpUrl& url, const std::string& ca_file, std::chrono::milliseconds timeout);

  void send_all(std::string_view data);
  // Reads at most `size` bytes into `buffer`; 0 when the server closed.
  std::size_t receive(char* buffer, std::size_t size);

 private:
  struct SslCtxDeleter {
    void operator()(SSL_CTX* context) const { SSL_CTX_free(context); }
  };
  struct SslDeleter {
    void operator()(SSL* ssl) const { SSL_free(ssl); }
  };

  void start_tls(const HttpUrl& url, const std::string& ca_file);
  // Waits as OpenSSL asks after `result` of an SSL call; false when the call
  // failed for good.
  bool wait_for_tls(int result, const char* what);
  [[noreturn]] void fail(const std::string& what) const;
  [[noreturn]] void timed_out(const char* what) const;

  std::string endpoint_;
  HttpDeadline deadline_;
  std::chrono::milliseconds timeout_;  // for messages
  UniqueFd fd_;
  std::unique_ptr<SSL_CTX, SslCtxDeleter> context_;
  std::unique_ptr<SSL, SslDeleter> ssl_;
};

}  // namespace netif_rx
