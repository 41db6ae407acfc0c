// Which salt the running kernel gives the probe to key devices of other
// namespaces with (see struct netif_rx_device_key): the low half of struct
// net's net_cookie where the kernel assigns it at namespace setup (a plain u64,
// Linux >= 5.12; never reused within a boot), else its hash_mix (random,
// Linux >= 5.1). Without either, a namespace that gets a dead one's inode
// number would continue the dead namespace's counters. Read from the
// kernel's BTF by the rule the probe's CO-RE check applies at load time (a
// net_cookie that is an atomic64_t, 5.7-5.11, is not a match).
#pragma once

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

}  // namespace netif_rx
