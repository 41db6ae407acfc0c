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

// A 64-bit integer once typedefs and qualifiers are skipped (u64, __u64),
// as CO-RE requires of the probe's `__u64 net_cookie`.
bool is_u64(const btf& kernel, __u32 type_id) {
  const int resolved = btf__resolve_type(&kernel, type_id);
  if (resolved < 0) return false;
  const btf_type* type = btf__type_by_id(&kernel, static_cast<__u32>(resolved));
  return type && btf_is_int(type) && type->size == 8;
}

}  // namespace

NetnsSaltSupport netns_salt_support(const btf& kernel) {
  const int id = btf__find_by_name_kind(&kernel, "net", BTF_KIND_STRUCT);
  if (id <= 0) return {NetnsSaltSupport::Kind::unknown, "the BTF has no struct net"};
  const btf_type* net = btf__type_by_id(&kernel, static_cast<__u32>(id));
  const btf_member* members = btf_members(net);
  bool hash_mix = false;
  for (unsigned i = 0; i < btf_vlen(net); ++i) {
    const char* name = btf__name_by_offset(&kernel, members[i].name_off);
    if (!name) continue;
    if (std::strcmp(name, "net_cookie") == 0 && is_u64(kernel, members[i].type)) {
      return {NetnsSaltSupport::Kind::net_cookie, ""};
    }
    if (std::strcmp(name, "hash_mix") == 0) hash_mix = true;
  }
  return {hash_mix ? NetnsSaltSupport::Kind::hash_mix : NetnsSaltSupport::Kind::missing, ""};
}

NetnsSaltSupport netns_salt_support(const std::string& btf_path) {
  std::unique_ptr<btf, BtfDeleter> kernel(btf__parse(btf_path.c_str(), nullptr));
  if (!kernel) {
    return {NetnsSaltSupport::Kind::unknown,
            "reading " + btf_path + " failed: " + std::strerror(errno)};
  }
  NetnsSaltSupport support = netns_salt_support(*kernel);
  if (support.kind == NetnsSaltSupport::Kind::unknown)
    support.detail = btf_path + " has no struct net";
  return support;
}

}  // namespace netif_rx
