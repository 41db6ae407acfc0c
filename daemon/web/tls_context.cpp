#include "web/tls_context.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>

#include <array>
#include <fstream>
#include <iterator>
#include <memory>
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

// A certificate the configuration requires is asked for but not required by
// the handshake: a connection without one may still reach the probe paths
// (kubelet presents none), and every other path refuses it (see
// requires_client_certificate). One presented is verified as configured.
int verify_mode(ClientAuth auth) {
  return auth == ClientAuth::none ? SSL_VERIFY_NONE : SSL_VERIFY_PEER;
}

constexpr std::size_t kSessionContextSize = 32;
using SessionContext = std::array<unsigned char, kSessionContextSize>;

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// SHA-256 of everything a session's security depends on: the certificate,
// key and client CA files and the client authentication settings. A session
// issued under one configuration is never resumed under another.
SessionContext session_context_of(const TlsServerConfig& config) {
  std::string material = "netif_rx_exporter tls v1\n";
  for (const auto* file : {&config.cert_file, &config.key_file, &config.client_ca_file}) {
    const std::string bytes = file->empty() ? std::string() : file_bytes(*file);
    material += std::to_string(bytes.size()) + ":" + bytes;
  }
  material += std::to_string(static_cast<int>(config.client_auth)) + ":" +
              std::to_string(static_cast<int>(config.min_version));
  SessionContext out{};
  unsigned length = 0;
  EVP_Digest(material.data(), material.size(), out.data(), &length, EVP_sha256(), nullptr);
  return out;
}

// Each context we build carries its session id context in ex_data (OpenSSL
// has no getter for it), so that a connection switched to it gets it too.
int session_context_index() {
  static const int index = SSL_CTX_get_ex_new_index(
      0, nullptr, nullptr, nullptr, [](void*, void* data, CRYPTO_EX_DATA*, int, long, void*) {
        delete static_cast<SessionContext*>(data);
      });
  return index;
}

const SessionContext* session_context(SSL_CTX* ctx) {
  return static_cast<const SessionContext*>(SSL_CTX_get_ex_data(ctx, session_context_index()));
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
  // Before the session lookup: a session (cached or ticket) issued under
  // another configuration does not match and gets a full handshake.
  const SessionContext* context = session_context(from);
  return context != nullptr &&
         SSL_set_session_id_context(ssl, context->data(), context->size()) == 1;
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
  auto context = std::make_unique<SessionContext>(session_context_of(config));
  if (SSL_CTX_set_session_id_context(ctx.get(), context->data(), context->size()) != 1 ||
      SSL_CTX_set_ex_data(ctx.get(), session_context_index(), context.get()) != 1) {
    throw TlsError("cannot set the TLS session context: " + openssl_error());
  }
  (void)context.release();  // owned by the context now
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
  // Every connection gets the newest configuration's session id context in
  // the ClientHello callback; until then, one that matches no session.
  static const unsigned char kNoSession[] = "netif_rx_exporter: not yet configured";
  SSL_CTX_set_session_id_context(base, kNoSession, SSL_MAX_SID_CTX_LENGTH);
  SSL_CTX_set_client_hello_cb(base, on_client_hello, const_cast<TlsContextSource*>(source));
  return true;
}

}  // namespace netif_rx
