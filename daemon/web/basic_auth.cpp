#include "web/basic_auth.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <strings.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <thread>

namespace netif_rx {
namespace {

std::optional<std::string> base64_decode(std::string_view in) {
  static constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  std::size_t i = 0;
  for (; i < in.size() && in[i] != '='; ++i) {
    const auto value = kAlphabet.find(in[i]);
    if (value == std::string_view::npos) return std::nullopt;
    buffer = (buffer << 6) | static_cast<unsigned>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  for (; i < in.size(); ++i) {
    if (in[i] != '=') return std::nullopt;
  }
  return out;
}

// One bcrypt at a time in the whole process: however many clients send
// credentials, checking them never takes more than one core.
std::mutex& bcrypt_turn() {
  static std::mutex turn;
  return turn;
}

// When the bcrypt turn was taken and how long the hash took.
struct CryptTiming {
  std::chrono::steady_clock::time_point turn_taken;
  std::chrono::nanoseconds busy{0};
};

// Whether a hash waits for the process-wide bcrypt turn.
enum class Turn { wait, skip };

std::optional<std::string> crypt_text(const std::string& phrase, const std::string& setting,
                                      CryptTiming* timing = nullptr, Turn turn = Turn::wait) {
  auto data = std::make_unique<crypt_data>();
  std::unique_lock lock(bcrypt_turn(), std::defer_lock);
  if (turn == Turn::wait) lock.lock();
  const auto started = std::chrono::steady_clock::now();
  const char* result = ::crypt_r(phrase.c_str(), setting.c_str(), data.get());
  if (timing != nullptr) *timing = {started, std::chrono::steady_clock::now() - started};
  // libcrypt's failure tokens start with '*'.
  if (result == nullptr || result[0] == '*') return std::nullopt;
  return std::string(result);
}

bool verify_bcrypt_timed(const std::string& password, const std::string& hash,
                         CryptTiming* timing) {
  const auto computed = crypt_text(password, hash, timing);
  if (!computed || computed->size() != hash.size()) return false;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < hash.size(); ++i) {
    difference |= static_cast<unsigned char>((*computed)[i] ^ hash[i]);
  }
  return difference == 0;
}

// "$2b$NN$" + a fixed 22-character salt, at the cost of `like`. Made when a
// web configuration is loaded, which every request waits for: it does not
// queue behind the clients' bcrypt checks (one more hash, once per reload).
std::string make_dummy(const std::string& like, CryptTiming* timing) {
  const std::string cost = like.size() >= 7 ? like.substr(4, 2) : "10";
  return crypt_text("netif_rx_exporter dummy", "$2b$" + cost + "$abcdefghijklmnopqrstuu", timing,
                    Turn::skip)
      .value_or("");
}

}  // namespace

std::optional<BasicCredentials> parse_basic_authorization(std::string_view header) {
  constexpr std::string_view kScheme = "Basic ";
  if (header.size() <= kScheme.size() || strncasecmp(header.data(), "basic ", 6) != 0) {
    return std::nullopt;
  }
  header.remove_prefix(kScheme.size());
  while (!header.empty() && header.front() == ' ') header.remove_prefix(1);
  while (!header.empty() && header.back() == ' ') header.remove_suffix(1);
  const auto decoded = base64_decode(header);
  if (!decoded) return std::nullopt;
  const auto colon = decoded->find(':');
  if (colon == std::string::npos) return std::nullopt;
  return BasicCredentials{decoded->substr(0, colon), decoded->substr(colon + 1)};
}

bool verify_bcrypt(const std::string& password, const std::string& hash) {
  return verify_bcrypt_timed(password, hash, nullptr);
}

std::string dummy_bcrypt_hash(const std::string& like) { return make_dummy(like, nullptr); }

BasicAuthenticator::BasicAuthenticator(std::map<std::string, std::string> users)
    : users_(std::move(users)) {
  // An unknown user costs what the dearest known user costs, so a response's
  // time never tells which names exist.
  const std::string* dearest = nullptr;
  for (const auto& [user, hash] : users_) {
    if (dearest == nullptr || hash.substr(4, 2) > dearest->substr(4, 2)) dearest = &hash;
  }
  if (dearest == nullptr) return;
  CryptTiming timing;
  dummy_ = make_dummy(*dearest, &timing);
  dearest_ns_ = timing.busy.count();
  if (RAND_bytes(key_.data(), static_cast<int>(key_.size())) != 1) {
    throw std::runtime_error("basic auth: no random bytes for the credential cache key");
  }
}

BasicAuthenticator::Digest BasicAuthenticator::digest(const std::string& password) const {
  Digest out{};
  unsigned length = 0;
  HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
       reinterpret_cast<const unsigned char*>(password.data()), password.size(), out.data(),
       &length);
  return out;
}

bool BasicAuthenticator::verified_before(const std::string& user, const Digest& password) const {
  std::lock_guard lock(cache_mutex_);
  const auto found = cache_.find(user);
  return found != cache_.end() &&
         CRYPTO_memcmp(found->second.data(), password.data(), password.size()) == 0;
}

// Sleeps until a bcrypt at the dearest cost, begun when this request's turn
// came, would have finished; always false.
bool BasicAuthenticator::refuse_after(std::chrono::steady_clock::time_point turn_taken) const {
  std::this_thread::sleep_until(turn_taken + std::chrono::nanoseconds(dearest_ns_.load()));
  return false;
}

bool BasicAuthenticator::allows(const char* authorization) const {
  if (users_.empty()) return true;
  if (authorization == nullptr) return false;
  const auto credentials = parse_basic_authorization(authorization);
  if (!credentials) return false;
  const auto found = users_.find(credentials->user);
  CryptTiming timing;
  if (found == users_.end()) {
    (void)verify_bcrypt_timed(credentials->password, dummy_, &timing);  // the dearest cost
    // Follow the machine's load, so that refusals of known users keep pace.
    dearest_ns_ = (dearest_ns_.load() * 7 + timing.busy.count()) / 8;
    return false;
  }
  const Digest password = digest(credentials->password);
  if (verified_before(found->first, password)) return true;
  if (!verify_bcrypt_timed(credentials->password, found->second, &timing)) {
    return refuse_after(timing.turn_taken);
  }
  std::lock_guard lock(cache_mutex_);
  cache_[found->first] = password;
  return true;
}

}  // namespace netif_rx
