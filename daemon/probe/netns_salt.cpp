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

// What struct net's members say, searched as CO-RE searches a field: also
// inside anonymous structs and unions (a distribution's kABI wrappers), a few
// levels deep.
struct NetMembers {
  bool net_cookie = false;  // an 8-byte integer
  bool hash_mix = false;
};

void find_members(const btf& kernel, const btf_type* type, int depth, NetMembers& found) {
  if (!type || !btf_is_composite(type) || depth > 4) return;
  const btf_member* members = btf_members(type);
  for (unsigned i = 0; i < btf_vlen(type); ++i) {
    const char* name = btf__name_by_offset(&kernel, members[i].name_off);
    if (!name || *name == '\0') {
      const int resolved = btf__resolve_type(&kernel, members[i].type);
      if (resolved > 0)
        find_members(kernel, btf__type_by_id(&kernel, static_cast<__u32>(resolved)), depth + 1,
                     found);
      continue;
    }
    if (std::strcmp(name, "net_cookie") == 0 && is_u64(kernel, members[i].type))
      found.net_cookie = true;
    if (std::strcmp(name, "hash_mix") == 0) found.hash_mix = true;
  }
}

}  // namespace

NetnsSaltSupport netns_salt_support(const btf& kernel) {
  const int id = btf__find_by_name_kind(&kernel, "net", BTF_KIND_STRUCT);
  if (id <= 0) return {NetnsSaltSupport::Kind::unknown, "the BTF has no struct net"};
  NetMembers found;
  find_members(kernel, btf__type_by_id(&kernel, static_cast<__u32>(id)), 0, found);
  if (found.net_cookie) return {NetnsSaltSupport::Kind::net_cookie, ""};
  return {found.hash_mix ? NetnsSaltSupport::Kind::hash_mix : NetnsSaltSupport::Kind::missing, ""};
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
