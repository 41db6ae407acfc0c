// Makes Debian's civetweb 1.15 usable for TLS with OpenSSL 3 (see
// compat/civetweb_tls_compat.c): loads the compatibility library, once,
// before the first TLS server starts.
#pragma once

namespace netif_rx {

// Throws TlsError naming where it looked when the library can't be loaded.
void load_civetweb_tls_compat();

}  // namespace netif_rx
