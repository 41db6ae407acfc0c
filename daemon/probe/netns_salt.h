// Which salt the running kernel gives the probe to key devices of other
// namespaces with (see struct netif_rx_device_key): the low half of struct
// net's net_cookie where the kernel assigns it at namespace setup (a plain u64,
// Linux >= 5.12; never reused within a boot), else its hash_mix (random,
// Linux >= 5.1). Without either, a namespace that gets a dead one's inode
// number would continue the dead namespace's counters. Read from the
// kernel's BTF by the rule the probe's CO-RE check applies at load time (a
// net_cookie that is an atomic64_t, 5.7-5.11, is not a match).
#pragma once

#include <cstdint>
#include <string>

struct btf;

namespace netif_rx {

struct NetnsSaltSupport {
  enum class Kind { net_cookie, hash_mix, missing, unknown };
  Kind kind = Kind::unknown;
  std::string detail;  // unknown: why the BTF could not be read
};

NetnsSaltSupport netns_salt_support(const std::string& btf_path);

// The same decision over a parsed BTF (tests build one in memory).
NetnsSaltSupport netns_salt_support(const btf& kernel);

// Of two namespaces that shared an inode number (one died, the other took
// its number), whether the one salted `a` is the newer. Cookie salts count
// namespace creations (the low 32 bits of a 64-bit counter): compared as
// serial numbers, so that the count's wrap past 2^32 keeps the order, right
// while fewer than 2^31 namespaces were created between the two. hash_mix
// salts are random: the answer is arbitrary, but then both namespaces got
// the owner their inode has now (no identity to tell them apart), so either
// tells the same.
constexpr bool netns_salt_is_newer(std::uint32_t a, std::uint32_t b) {
  return static_cast<std::int32_t>(a - b) > 0;
}

}  // namespace netif_rx
