/*
 * Debian's civetweb 1.15 loads OpenSSL at run time with dlopen("libssl.so")
 * and looks up SSL_get_peer_certificate, which OpenSSL 3 renamed
 * SSL_get1_peer_certificate: the pointer stays null and civetweb crashes on
 * the first TLS connection. This library's SONAME is "libssl.so": once the
 * daemon has loaded it, civetweb's dlopen("libssl.so") finds it among the
 * loaded objects, takes the missing function from here and every other one
 * from the real libssl it depends on.
 */
#include <openssl/ssl.h>

#undef SSL_get_peer_certificate

__attribute__((visibility("default"))) X509* SSL_get_peer_certificate(const SSL* ssl) {
  return SSL_get1_peer_certificate(ssl);
}
