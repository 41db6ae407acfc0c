// Whether the running kernel gives each network namespace the salt the probe
// keys devices of other namespaces with (struct net's hash_mix, Linux >= 5.1):
// without it, a namespace that gets a dead one's inode number would continue
// the dead namespace's counters. Read from the kernel's BTF, as the probe's
// CO-RE check does at load time.
#pragma once

#include <string>

namespace netif_rx {

struct NetnsSaltSupport {
  enum class Kind { present, missing, unknown };
  Kind kind = Kind::unknown;
  std::string detail;  // unknown: why the BTF could not be read
};

NetnsSaltSupport netns_salt_support(const std::string& btf_path);

}  // namespace netif_rx
