#include "web/web_config.h"

#include <gtest/gtest.h>

#include "error_text.h"

namespace netif_rx {
namespace {

const std::string kHash = "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi";

std::string error_of(std::string_view text) {
  return test::error_text<ConfigError>([&] { parse_web_config(text, "/etc/x/web.yml"); });
}

TEST(WebConfig, EmptyFileMeansPlainHttpWithoutAuth) {
  const WebConfig config = parse_web_config("", "web.yml");
  EXPECT_FALSE(config.tls);
  EXPECT_TRUE(config.basic_auth_users.empty());
  EXPECT_TRUE(config.headers.empty());
}

TEST(WebConfig, ParsesEverySection) {
  const WebConfig config = parse_web_config(
      "tls_server_config:\n"
      "  cert_file: server.crt\n"
      "  key_file: /abs/server.key\n"
      "  client_ca_file: ca.crt\n"
      "  client_auth_type: RequireAndVerifyClientCert\n"
      "  min_version: TLS13\n"
      "http_server_config:\n"
      "  headers:\n"
      "    X-Frame-Options: deny\n"
      "    Strict-Transport-Security: max-age=31536000\n"
      "basic_auth_users:\n"
      "  alice: " +
          kHash + "\n",
      "/etc/x/web.yml");
  ASSERT_TRUE(config.tls);
  EXPECT_EQ(config.tls->cert_file, "/etc/x/server.crt");  // relative to the file
  EXPECT_EQ(config.tls->key_file, "/abs/server.key");
  EXPECT_EQ(config.tls->client_ca_file, "/etc/x/ca.crt");
  EXPECT_EQ(config.tls->client_auth, ClientAuth::require_and_verify);
  EXPECT_EQ(config.tls->min_version, TlsVersion::tls13);
  ASSERT_EQ(config.headers.size(), 2u);
  EXPECT_EQ(config.headers[0].first, "X-Frame-Options");
  EXPECT_EQ(config.headers[0].second, "deny");
  EXPECT_EQ(config.basic_auth_users.at("alice"), kHash);
}

TEST(WebConfig, ErrorsNameFileLineColumnAndKey) {
  EXPECT_EQ(error_of("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS11\n"),
            "/etc/x/web.yml:4:16: key 'tls_server_config.min_version': 'TLS11' is not valid; "
            "expected one of TLS12, TLS13");
  EXPECT_EQ(error_of("basic_auth_users:\n  bob: plaintext\n"),
            "/etc/x/web.yml:2:8: key 'basic_auth_users.bob': not a bcrypt hash; expected "
            "$2y$/$2b$/$2a$ and 60 characters (htpasswd -nBC 10 user)");
  EXPECT_EQ(error_of("basic_auth_users:\n  bob: "
                     "$2y$03$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi\n"),
            "/etc/x/web.yml:2:8: key 'basic_auth_users.bob': bcrypt cost 03 is out of range; must "
            "be between 04 and 31");
  EXPECT_EQ(error_of("tls_config: {}\n"),
            "/etc/x/web.yml:1:1: key 'tls_config': unknown or unsupported key; valid keys are "
            "basic_auth_users, http_server_config, tls_server_config");
  EXPECT_EQ(error_of("a: [\n"), "/etc/x/web.yml:2:1: invalid YAML: end of sequence flow not found");
}

TEST(WebConfig, TlsNeedsCertificateKeyAndACaToVerify) {
  EXPECT_EQ(error_of("tls_server_config:\n  cert_file: a\n"),
            "/etc/x/web.yml:1:1: key 'tls_server_config.key_file': missing; TLS needs the "
            "certificate's key");
  EXPECT_EQ(error_of("tls_server_config:\n  cert_file: a\n  key_file: b\n"
                     "  client_auth_type: VerifyClientCertIfGiven\n"),
            "/etc/x/web.yml:4:3: key 'tls_server_config.client_auth_type': "
            "VerifyClientCertIfGiven needs client_ca_file");
  EXPECT_NE(error_of("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: c\n"),
            "");
  EXPECT_EQ(error_of("tls_server_config:\n  cert_file: a\n  key_file: b\n"
                     "  client_auth_type: RequireAnyClientCert\n"),
            "");
}

TEST(WebConfig, OnlyTheToolkitsHeadersWithoutLineBreaks) {
  EXPECT_TRUE(is_allowed_header("x-frame-options"));
  EXPECT_TRUE(is_allowed_header("Content-Security-Policy"));
  EXPECT_FALSE(is_allowed_header("Set-Cookie"));
  EXPECT_FALSE(is_allowed_header("X-Frame-Options2"));
  EXPECT_EQ(error_of("http_server_config:\n  headers:\n    Set-Cookie: a=b\n"),
            "/etc/x/web.yml:3:5: key 'http_server_config.headers.Set-Cookie': this header can't "
            "be set; allowed: Content-Security-Policy, X-Frame-Options, X-Content-Type-Options, "
            "X-XSS-Protection, Strict-Transport-Security");
  EXPECT_NE(error_of("http_server_config:\n  headers:\n    X-Frame-Options: \"a\\r\\nB: c\"\n"),
            "");
  EXPECT_NE(error_of("http_server_config:\n  headers:\n    X-Frame-Options: a\n"
                     "    x-frame-options: b\n"),
            "");
}

}  // namespace
}  // namespace netif_rx
