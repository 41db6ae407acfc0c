#include "probe/alloc_cpu_support.h"

#include <bpf/btf.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "util/errno_text.h"

namespace netif_rx {

namespace {

// Whether the struct or union `type` has a member `name`, also inside its
// anonymous structs and unions (sk_buff keeps most fields in
// struct_group()s).
bool has_member(const btf* parsed, const btf_type* type, const char* name, int depth) {
  if (depth > 8 || (!btf_is_struct(type) && !btf_is_union(type))) return false;
  const btf_member* member = btf_members(type);
  for (unsigned short i = 0; i < btf_vlen(type); ++i, ++member) {
    const char* member_name = btf__name_by_offset(parsed, member->name_off);
    if (member_name && std::strcmp(member_name, name) == 0) return true;
    if ((!member_name || *member_name == '\0') &&
        has_member(parsed, btf__type_by_id(parsed, member->type), name, depth + 1))
      return true;
  }
  return false;
}

}  // namespace

std::optional<bool> skb_has_alloc_cpu(const std::string& btf_path, std::string& error) {
  const auto free_btf = [](btf* parsed) { btf__free(parsed); };
  std::unique_ptr<btf, decltype(free_btf)> parsed(btf__parse(btf_path.c_str(), nullptr), free_btf);
  if (!parsed) {
    error = "reading BTF at " + btf_path + " failed: " + errno_text(errno);
    return std::nullopt;
  }
  const int id = btf__find_by_name_kind(parsed.get(), "sk_buff", BTF_KIND_STRUCT);
  if (id < 0) {
    error = "the BTF at " + btf_path + " has no struct sk_buff";
    return std::nullopt;
  }
  return has_member(parsed.get(), btf__type_by_id(parsed.get(), id), "alloc_cpu", 0);
}

}  // namespace netif_rx
