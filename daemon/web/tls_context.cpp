#include "web/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>

#include <string>

#include "util/log.h"

namespace netif_rx {
namespace {

std::string openssl_error() {
  std::string out;
  while (const unsigned long code = ERR_get_error()) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    out += (out.empty() ? "" : "; ") + std::string(text);
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

int accept_any_certificate(int, X509_STORE_CTX*) { return 1; }

int verify_mode(ClientAuth auth) {
  switch (auth) {
    case ClientAuth::none:
      return SSL_VERIFY_NONE;
    case ClientAuth::request:
    case ClientAuth::verify_if_given:
      return SSL_VERIFY_PEER;
    case ClientAuth::require_any:
    case ClientAuth::require_and_verify:
      return SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  }
  return SSL_VERIFY_NONE;
}

// Without verification, the certificate is asked for (or required) but any
// is accepted.
SSL_verify_cb verify_callback(ClientAuth auth) {
  return auth == ClientAuth::request || auth == ClientAuth::require_any ? accept_any_certificate
                                                                        : nullptr;
}

// Gives one connection everything of `from` that the handshake uses:
// certificate, chain and key, the client CA store and names, verification
// and the minimum version. Set on the connection itself rather than by
// switching its context (SSL_set_SSL_CTX): civetweb's own SNI callback runs
// later in the handshake and switches the context back to its own.
bool apply_context(SSL* ssl, SSL_CTX* from) {
  X509* cert = SSL_CTX_get0_certificate(from);
  EVP_PKEY* key = SSL_CTX_get0_privatekey(from);
  STACK_OF(X509)* chain = nullptr;
  SSL_CTX_get0_chain_certs(from, &chain);
  if (cert == nullptr || key == nullptr || SSL_use_cert_and_key(ssl, cert, key, chain, 1) != 1) {
    return false;
  }
  if (SSL_set1_verify_cert_store(ssl, SSL_CTX_get_cert_store(from)) != 1) return false;
  if (STACK_OF(X509_NAME)* names = SSL_CTX_get_client_CA_list(from)) {
    STACK_OF(X509_NAME)* copy = SSL_dup_CA_list(names);
    if (copy == nullptr) return false;
    SSL_set_client_CA_list(ssl, copy);
  }
  SSL_set_verify(ssl, SSL_CTX_get_verify_mode(from), SSL_CTX_get_verify_callback(from));
  SSL_set_min_proto_version(ssl, SSL_CTX_get_min_proto_version(from));
  return true;
}

int on_client_hello(SSL* ssl, int* alert, void* arg) {
  const auto* source = static_cast<const TlsContextSource*>(arg);
  const TlsContext newest = (*source)();
  if (!newest || !apply_context(ssl, newest.get())) {
    log::error("TLS handshake refused: no usable certificate");
    *alert = SSL_AD_INTERNAL_ERROR;
    return SSL_CLIENT_HELLO_ERROR;
  }
  return SSL_CLIENT_HELLO_SUCCESS;
}

}  // namespace

TlsContext build_tls_context(const TlsServerConfig& config) {
  TlsContext ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (!ctx) throw TlsError("cannot create a TLS context: " + openssl_error());
  ERR_clear_error();
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), config.cert_file.c_str()) != 1) {
    throw TlsError("cannot load the TLS certificate " + config.cert_file + ": " + openssl_error());
  }
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), config.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    throw TlsError("cannot load the TLS key " + config.key_file + ": " + openssl_error());
  }
  if (SSL_CTX_check_private_key(ctx.get()) != 1) {
    throw TlsError("the TLS key " + config.key_file + " does not match the certificate " +
                   config.cert_file);
  }
  if (!config.client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx.get(), config.client_ca_file.c_str(), nullptr) != 1) {
      throw TlsError("cannot load the client CA file " + config.client_ca_file + ": " +
                     openssl_error());
    }
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(config.client_ca_file.c_str());
    if (names != nullptr) SSL_CTX_set_client_CA_list(ctx.get(), names);
  }
  SSL_CTX_set_verify(ctx.get(), verify_mode(config.client_auth),
                     verify_callback(config.client_auth));
  SSL_CTX_set_min_proto_version(
      ctx.get(), config.min_version == TlsVersion::tls13 ? TLS1_3_VERSION : TLS1_2_VERSION);
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  // One session id context, so that resumption works across rotations.
  static const unsigned char kSessionContext[] = "netif_rx_exporter";
  SSL_CTX_set_session_id_context(ctx.get(), kSessionContext, sizeof kSessionContext - 1);
  return ctx;
}

bool install_tls_rotation(ssl_ctx_st* base, const TlsContext& current,
                          const TlsContextSource* source) {
  if (base == nullptr || !current || source == nullptr) return false;
  ERR_clear_error();
  X509* cert = SSL_CTX_get0_certificate(current.get());
  EVP_PKEY* key = SSL_CTX_get0_privatekey(current.get());
  if (cert == nullptr || key == nullptr || SSL_CTX_use_certificate(base, cert) != 1 ||
      SSL_CTX_use_PrivateKey(base, key) != 1) {
    log::error("cannot set up the TLS listener", {{"err", openssl_error()}});
    return false;
  }
  SSL_CTX_set_verify(base, SSL_CTX_get_verify_mode(current.get()),
                     SSL_CTX_get_verify_callback(current.get()));
  SSL_CTX_set_min_proto_version(base, SSL_CTX_get_min_proto_version(current.get()));
  SSL_CTX_set_options(base, SSL_OP_NO_RENEGOTIATION);
  static const unsigned char kSessionContext[] = "netif_rx_exporter";
  SSL_CTX_set_session_id_context(base, kSessionContext, sizeof kSessionContext - 1);
  SSL_CTX_set_client_hello_cb(base, on_client_hello, const_cast<TlsContextSource*>(source));
  return true;
}

}  // namespace netif_rx
