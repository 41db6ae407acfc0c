#include "web/basic_auth.h"

#include <crypt.h>
#include <strings.h>

#include <algorithm>
#include <memory>

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

std::optional<std::string> crypt_text(const std::string& phrase, const std::string& setting) {
  auto data = std::make_unique<crypt_data>();
  const char* result = ::crypt_r(phrase.c_str(), setting.c_str(), data.get());
  // libcrypt's failure tokens start with '*'.
  if (result == nullptr || result[0] == '*') return std::nullopt;
  return std::string(result);
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
  const auto computed = crypt_text(password, hash);
  if (!computed || computed->size() != hash.size()) return false;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < hash.size(); ++i) {
    difference |= static_cast<unsigned char>((*computed)[i] ^ hash[i]);
  }
  return difference == 0;
}

std::string dummy_bcrypt_hash(const std::string& like) {
  // "$2b$NN$" + a fixed 22-character salt.
  const std::string cost = like.size() >= 7 ? like.substr(4, 2) : "10";
  return crypt_text("netif_rx_exporter dummy", "$2b$" + cost + "$abcdefghijklmnopqrstuu")
      .value_or("");
}

BasicAuthenticator::BasicAuthenticator(std::map<std::string, std::string> users)
    : users_(std::move(users)) {
  // An unknown user costs what the dearest known user costs, so a response's
  // time never tells which names exist.
  const std::string* dearest = nullptr;
  for (const auto& [user, hash] : users_) {
    if (dearest == nullptr || hash.substr(4, 2) > dearest->substr(4, 2)) dearest = &hash;
  }
  if (dearest != nullptr) dummy_ = dummy_bcrypt_hash(*dearest);
}

bool BasicAuthenticator::allows(const char* authorization) const {
  if (users_.empty()) return true;
  if (authorization == nullptr) return false;
  const auto credentials = parse_basic_authorization(authorization);
  if (!credentials) return false;
  const auto found = users_.find(credentials->user);
  if (found == users_.end()) {
    (void)verify_bcrypt(credentials->password, dummy_);  // same cost as a wrong password
    return false;
  }
  return verify_bcrypt(credentials->password, found->second);
}

}  // namespace netif_rx
