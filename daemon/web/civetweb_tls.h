// Makes Debian's civetweb 1.15 usable for TLS with OpenSSL 3 on a system
// without libssl-dev (see compat/civetweb_tls_compat.c and
// civetweb_crypto_compat.c): loads the two compatibility libraries, once,
// before the first TLS server starts.
#pragma once

namespace netif_rx {

// Throws TlsError naming where it looked when a library can't be loaded.
void load_civetweb_tls_compat();

}  // namespace netif_rx
