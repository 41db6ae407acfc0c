#include "top/http_connection.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "top/http_response.h"

namespace netif_rx {
namespace {

using Clock = std::chrono::steady_clock;

int remaining_ms(HttpDeadline deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// Waits for `events` on `fd` until the deadline; false on timeout.
bool wait_for(int fd, short events, HttpDeadline deadline) {
  pollfd entry{fd, events, 0};
  while (true) {
    const int ready = ::poll(&entry, 1, remaining_ms(deadline));
    if (ready > 0) return true;
    if (ready == 0 || errno != EINTR) return false;
  }
}

struct AddrinfoDeleter {
  void operator()(addrinfo* list) const { ::freeaddrinfo(list); }
};

// A connected socket to one of the host's addresses.
UniqueFd connect_to(const HttpUrl& url, HttpDeadline deadline) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int err = ::getaddrinfo(url.host.c_str(), url.port.c_str(), &hints, &found); err != 0) {
    throw HttpFetchError("cannot resolve " + url.host + ": " + ::gai_strerror(err));
  }
  const std::unique_ptr<addrinfo, AddrinfoDeleter> addresses(found);
  std::string last_error = "no address";
  for (const addrinfo* address = found; address != nullptr; address = address->ai_next) {
    UniqueFd fd(::socket(address->ai_family, address->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                         address->ai_protocol));
    if (!fd.valid()) {
      last_error = std::strerror(errno);
      continue;
    }
    if (::connect(fd.get(), address->ai_addr, address->ai_addrlen) == 0) return fd;
    if (errno != EINPROGRESS) {
      last_error = std::strerror(errno);
      continue;
    }
    if (!wait_for(fd.get(), POLLOUT, deadline)) {
      last_error = "timed out";
      continue;
    }
    int error = 0;
    socklen_t length = sizeof error;
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length);
    if (error == 0) return fd;
    last_error = std::strerror(error);
  }
  throw HttpFetchError("cannot connect to " + url_endpoint(url) + ": " + last_error);
}

// OpenSSL's first queued error, or `fallback`.
std::string openssl_error(const char* fallback) {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return fallback;
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

bool is_ip_address(const std::string& host) {
  unsigned char buffer[sizeof(in6_addr)];
  return ::inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
         ::inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

}  // namespace

HttpConnection::HttpConnection(const HttpUrl& url, const std::string& ca_file,
                               std::chrono::milliseconds timeout)
    : endpoint_(url_endpoint(url)),
      deadline_(Clock::now() + timeout),
      timeout_(timeout),
      fd_(connect_to(url, deadline_)) {
  if (url.tls) start_tls(url, ca_file);
}

void HttpConnection::fail(const std::string& what) const {
  throw HttpFetchError(what + " (" + endpoint_ + ")");
}

void HttpConnection::timed_out(const char* what) const {
  fail(std::string(what) + " timed out: no complete answer within " +
       std::to_string(timeout_.count()) + "ms");
}

void HttpConnection::start_tls(const HttpUrl& url, const std::string& ca_file) {
  ERR_clear_error();
  context_.reset(SSL_CTX_new(TLS_client_method()));
  if (!context_) fail("TLS: " + openssl_error("cannot create a context"));
  SSL_CTX_set_min_proto_version(context_.get(), TLS1_2_VERSION);
  SSL_CTX_set_verify(context_.get(), SSL_VERIFY_PEER, nullptr);
  const int loaded = ca_file.empty()
                         ? SSL_CTX_set_default_verify_paths(context_.get())
                         : SSL_CTX_load_verify_locations(context_.get(), ca_file.c_str(), nullptr);
  if (loaded != 1) fail("TLS: cannot load the CA file '" + ca_file + "': " + openssl_error("?"));
  ssl_.reset(SSL_new(context_.get()));
  if (!ssl_ || SSL_set_fd(ssl_.get(), fd_.get()) != 1) fail("TLS: " + openssl_error("SSL_new"));
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl_.get());
  if (is_ip_address(url.host)) {
    X509_VERIFY_PARAM_set1_ip_asc(param, url.host.c_str());
  } else {
    SSL_set_tlsext_host_name(ssl_.get(), url.host.c_str());
    SSL_set1_host(ssl_.get(), url.host.c_str());
  }
  while (true) {
    const int result = SSL_connect(ssl_.get());
    if (result == 1) return;
    if (!wait_for_tls(result, "TLS handshake")) {
      const long verified = SSL_get_verify_result(ssl_.get());
      if (verified != X509_V_OK) {
        fail(std::string("TLS: the server's certificate is not trusted: ") +
             X509_verify_cert_error_string(verified) + "; give its CA with --from.ca-file");
      }
      fail("TLS handshake failed: " + openssl_error("the connection closed"));
    }
  }
}

bool HttpConnection::wait_for_tls(int result, const char* what) {
  const int error = SSL_get_error(ssl_.get(), result);
  short events = 0;
  if (error == SSL_ERROR_WANT_READ) events = POLLIN;
  if (error == SSL_ERROR_WANT_WRITE) events = POLLOUT;
  if (events == 0) return false;
  if (!wait_for(fd_.get(), events, deadline_)) timed_out(what);
  return true;
}

void HttpConnection::send_all(std::string_view data) {
  while (!data.empty()) {
    std::size_t sent = 0;
    if (ssl_) {
      ERR_clear_error();
      const int result = SSL_write_ex(ssl_.get(), data.data(), data.size(), &sent);
      if (result != 1) {
        if (!wait_for_tls(result, "sending")) fail("sending failed: " + openssl_error("TLS"));
        continue;
      }
    } else {
      if (!wait_for(fd_.get(), POLLOUT, deadline_)) timed_out("sending");
      const ssize_t written = ::send(fd_.get(), data.data(), data.size(), MSG_NOSIGNAL);
      if (written < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        fail(std::string("sending failed: ") + std::strerror(errno));
      }
      sent = static_cast<std::size_t>(written);
    }
    data.remove_prefix(sent);
  }
}

std::size_t HttpConnection::receive(char* buffer, std::size_t size) {
  while (true) {
    if (ssl_) {
      ERR_clear_error();
      std::size_t received = 0;
      const int result = SSL_read_ex(ssl_.get(), buffer, size, &received);
      if (result == 1) return received;
      if (SSL_get_error(ssl_.get(), result) == SSL_ERROR_ZERO_RETURN) return 0;
      if (!wait_for_tls(result, "reading the answer")) {
        fail("reading failed: " + openssl_error("the connection closed without TLS close_notify"));
      }
      continue;
    }
    if (!wait_for(fd_.get(), POLLIN, deadline_)) timed_out("reading the answer");
    const ssize_t received = ::recv(fd_.get(), buffer, size, 0);
    if (received >= 0) return static_cast<std::size_t>(received);
    if (errno != EINTR && errno != EAGAIN) {
      fail(std::string("reading failed: ") + std::strerror(errno));
    }
  }
}

}  // namespace netif_rx
