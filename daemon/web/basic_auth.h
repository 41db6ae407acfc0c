// HTTP basic authentication against bcrypt hashes (libcrypt's crypt_r).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace netif_rx {

struct BasicCredentials {
  std::string user;
  std::string password;
};

// The credentials of an "Authorization: Basic <base64>" header value;
// nullopt when it is absent or malformed.
std::optional<BasicCredentials> parse_basic_authorization(std::string_view header);

// True when `password` hashes to the bcrypt `hash`. Compares in constant time.
bool verify_bcrypt(const std::string& password, const std::string& hash);

// A bcrypt hash of nothing in particular, with the cost of `like` (a bcrypt
// hash), so that an unknown user costs as much as a wrong password.
std::string dummy_bcrypt_hash(const std::string& like);

class BasicAuthenticator {
 public:
  explicit BasicAuthenticator(std::map<std::string, std::string> users);
  bool enabled() const { return !users_.empty(); }
  // True when `authorization` (the header value, or null) names a user with
  // the right password. An unknown user is checked against a dummy hash.
  bool allows(const char* authorization) const;

 private:
  std::map<std::string, std::string> users_;
  std::string dummy_;
};

}  // namespace netif_rx
