// OpenSSL server contexts built from tls_server_config, and the per-connection
// switch to the newest one, so that certificates rotate without a restart.
//
// civetweb creates one SSL_CTX at startup and hands it to init_ssl; we set it
// up from the configuration and add a ClientHello callback. That callback runs
// before version negotiation and certificate selection on every handshake and
// gives the connection the newest context's certificate, key, client CA store,
// verification and minimum version. The listener never closes: a rotated
// certificate is served from the next handshake on.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>

#include "web/tls_error.h"
#include "web/web_config.h"

struct ssl_ctx_st;
struct ssl_st;

namespace netif_rx {

using TlsContext = std::shared_ptr<ssl_ctx_st>;

// True when the configuration requires a client certificate. The handshake
// then only asks for one (so that probes without one get through) and every
// path except the probe paths refuses a connection that presented none.
inline bool requires_client_certificate(ClientAuth auth) {
  return auth == ClientAuth::require_any || auth == ClientAuth::require_and_verify;
}

// A new server context: certificate chain, key (checked against it), client
// CA, client authentication, minimum version, and a session id context that
// is a digest of all of them (no session resumes across a change). Throws
// TlsError.
TlsContext build_tls_context(const TlsServerConfig& config);

// The newest context, or null when there is none (TLS off).
using TlsContextSource = std::function<TlsContext()>;

// Sets up civetweb's own context (`base`) like `current` and installs the
// ClientHello callback that switches each connection to source()'s newest
// context. `source` must outlive the server. Returns false on failure.
bool install_tls_rotation(ssl_ctx_st* base, const TlsContext& current,
                          const TlsContextSource* source);

}  // namespace netif_rx
