// HTTP basic authentication against bcrypt hashes (libcrypt's crypt_r).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
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
// At most one bcrypt runs at a time in the process (it never takes more than
// one core), so callers queue here.
bool verify_bcrypt(const std::string& password, const std::string& hash);

// A bcrypt hash of nothing in particular, with the cost of `like` (a bcrypt
// hash), so that an unknown user costs as much as a wrong password.
std::string dummy_bcrypt_hash(const std::string& like);

// Checks the Authorization header against the configured users. Built anew
// for every web configuration, so its cache starts empty on each change.
//
// - Verified credentials are remembered per user as a keyed digest (HMAC-
//   SHA-256 with a random per-instance key) of the password; the next request
//   with the same password skips bcrypt.
// - A refusal never returns before a bcrypt at the dearest configured cost
//   would have: an unknown user is checked against a dummy hash at that cost,
//   a known user with a cheaper hash waits out the difference (asleep, not
//   holding the bcrypt turn), so the time does not tell which names exist.
class BasicAuthenticator {
 public:
  explicit BasicAuthenticator(std::map<std::string, std::string> users);
  bool enabled() const { return !users_.empty(); }
  // True when `authorization` (the header value, or null) names a user with
  // the right password.
  bool allows(const char* authorization) const;

 private:
  using Digest = std::array<unsigned char, 32>;
  Digest digest(const std::string& password) const;
  bool verified_before(const std::string& user, const Digest& password) const;
  bool refuse_after(std::chrono::steady_clock::time_point turn_taken) const;

  std::map<std::string, std::string> users_;
  std::string dummy_;
  std::array<unsigned char, 32> key_{};
  // The time one bcrypt at the dearest cost takes, in nanoseconds, kept up to
  // date from each dummy check.
  mutable std::atomic<long long> dearest_ns_{0};
  mutable std::mutex cache_mutex_;
  mutable std::map<std::string, Digest> cache_;
};

}  // namespace netif_rx
