/*
 * Debian's civetweb 1.15 also loads OpenSSL's libcrypto at run time with
 * dlopen("libcrypto.so"), a name only libssl-dev ships (as a link to
 * libcrypto.so.3): without it TLS fails to start on a system that has
 * libssl3 alone. This library's SONAME is "libcrypto.so" and it depends on
 * the real libcrypto.so.3: once the daemon has loaded it, civetweb's
 * dlopen("libcrypto.so") finds it among the loaded objects, and each
 * dlsym() on that handle finds the function in its dependency. It defines
 * nothing itself.
 */
typedef int netif_rx_civetweb_crypto_compat_is_empty;
