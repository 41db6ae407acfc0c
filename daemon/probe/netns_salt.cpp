#include "probe/netns_salt.h"

#include <bpf/btf.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace netif_rx {
namespace {

struct BtfDeleter {
  void operator()(btf* handle) const { btf__free(handle); }
};

}  // namespace

NetnsSaltSupport netns_salt_support(const std::string& btf_path) {
  std::unique_ptr<btf, BtfDeleter> kernel(btf__parse(btf_path.c_str(), nullptr));
  if (!kernel) {
    return {NetnsSaltSupport::Kind::unknown,
            "reading " + btf_path + " failed: " + std::strerror(errno)};
  }
  const int id = btf__find_by_name_kind(kernel.get(), "net", BTF_KIND_STRUCT);
  if (id <= 0) return {NetnsSaltSupport::Kind::unknown, btf_path + " has no struct net"};
  const btf_type* net = btf__type_by_id(kernel.get(), static_cast<__u32>(id));
  const btf_member* members = btf_members(net);
  for (unsigned i = 0; i < btf_vlen(net); ++i) {
    const char* name = btf__name_by_offset(kernel.get(), members[i].name_off);
    if (name && std::strcmp(name, "hash_mix") == 0) return {NetnsSaltSupport::Kind::present, ""};
  }
  return {NetnsSaltSupport::Kind::missing, ""};
}

}  // namespace netif_rx
